package io.kaas.bench;

import java.util.List;
import java.util.Optional;

/**
 * The result of one {@code org.apache.kafka.tools.ConsumerPerformance} process: its header line
 * names the columns, the next line holds the values.
 *
 * <p>We keep {@code fetch.nMsg.sec} and {@code fetch.MB.sec}, which leave out the time the
 * consumer spent joining its group: joining is a one-off cost of a few seconds that would otherwise
 * dominate a short run and measure the group coordinator, not the fetch path.
 */
public record ConsumerSummary(long records, double recordsPerSec, double mbPerSec) {

    private static final String HEADER_START = "start.time,";

    public static Optional<ConsumerSummary> parse(List<String> lines) {
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (!lines.get(i).startsWith(HEADER_START)) {
                continue;
            }
            List<String> names = split(lines.get(i));
            List<String> values = split(lines.get(i + 1));
            if (values.size() != names.size()) {
                return Optional.empty();
            }
            try {
                return Optional.of(new ConsumerSummary(
                        Long.parseLong(values.get(names.indexOf("data.consumed.in.nMsg"))),
                        Double.parseDouble(values.get(names.indexOf("fetch.nMsg.sec"))),
                        Double.parseDouble(values.get(names.indexOf("fetch.MB.sec")))));
            } catch (NumberFormatException | IndexOutOfBoundsException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private static List<String> split(String line) {
        return List.of(line.trim().split("\\s*,\\s*"));
    }
}
