package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kaas.broker.config.BrokerConfig;
import io.kaas.broker.txn.TransactionConfig;
import io.kaas.storage.format.TopicConfig;
import io.kaas.storage.testing.ExternalTool;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * librdkafka's transactional producer (Debian's python3-confluent-kafka 1.7 on librdkafka 2.0, installed by
 * .ci/run) against kaas: commit, abort, commit over three partitions; read_committed sees exactly the
 * committed records, read_uncommitted every one, no marker surfaces as a record. librdkafka speaks the
 * KIP-98 protocol whatever {@code transaction.version} says, so both settings must serve it.
 */
@ParameterizedClass(name = "transaction.version={0}")
@ValueSource(shorts = {1, 2})
class LibrdkafkaTransactionsIT {
    @TempDir
    Path dir;

    @Parameter
    short transactionVersion;

    @Test
    void commitAbortCommitAndReadCommittedSeesExactlyTheCommitted() throws Exception {
        ExternalTool.PYTHON3_CONFLUENT_KAFKA.assumePresent();
        Path script = dir.resolve("librdkafka_transactions.py");
        try (InputStream in = LibrdkafkaTransactionsIT.class.getResourceAsStream("librdkafka_transactions.py")) {
            Files.copy(in, script);
        }
        try (TestBroker b = new TestBroker(
                BrokerConfig.forTest(dir.resolve("data")).withRetentionCheckInterval(Duration.ZERO),
                TransactionConfig.DEFAULTS.withVersion(transactionVersion))) {
            b.broker().engine().createTopic("rdk-txn", 3, TopicConfig.EMPTY);
            ExternalProcess p = ExternalProcess.run(
                    dir,
                    null,
                    List.of(ExternalTool.DEBIAN_PYTHON.toString(), script.toString(), b.bootstrap(), "rdk-txn", "3"));
            assertThat(p.exitCode()).as(p.toString()).isZero();
            JsonNode result = new ObjectMapper().readTree(p.out());
            assertThat(strings(result.get("sent_committed"))).hasSize(18);
            assertThat(strings(result.get("committed")))
                    .as(p.toString())
                    .containsExactlyInAnyOrderElementsOf(strings(result.get("sent_committed")));
            assertThat(strings(result.get("uncommitted")))
                    .as(p.toString())
                    .containsExactlyInAnyOrderElementsOf(strings(result.get("sent_all")));
            for (int partition = 0; partition < 3; partition++) {
                io.kaas.storage.PartitionState s = b.broker()
                        .engine()
                        .partition(new io.kaas.storage.TopicPartition("rdk-txn", partition))
                        .state();
                assertThat(s.highWatermark())
                        .as("3 transactions of 3 records each, 3 markers")
                        .isEqualTo(12);
                assertThat(s.lastStableOffset()).isEqualTo(s.highWatermark());
            }
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
