package io.kaas.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConsumerSummaryTest {

    private static final String HEADER = "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
            + "nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec";

    @Test
    void readsTheFetchRatesWhichExcludeTheGroupJoin() {
        List<String> out = List.of(HEADER, "2026-11-30 03:00:00:235, 2026-11-30 03:00:02:838, 19.5313, 7.5034, 20000, "
                + "7683.4422, 1907, 696, 28.0621, 28735.6322");
        assertThat(ConsumerSummary.parse(out)).contains(new ConsumerSummary(20000, 28735.6322, 28.0621));
    }

    @Test
    void aHeaderWithoutValuesIsNoSummary() {
        assertThat(ConsumerSummary.parse(List.of(HEADER))).isEmpty();
        assertThat(ConsumerSummary.parse(List.of(HEADER, "WARNING: Exiting before consuming the expected number"))).isEmpty();
    }
}
