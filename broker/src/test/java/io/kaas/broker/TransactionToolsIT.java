package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.storage.Acks;
import io.kaas.storage.PartitionState;
import io.kaas.storage.TestBatches;
import io.kaas.storage.TopicPartition;
import io.kaas.storage.format.TopicConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code kafka-transactions.sh} (Apache's TransactionsCommand, in a child JVM) against kaas: list,
 * describe, describe-producers, find-hanging and abort of a hanging transaction (one no coordinator
 * knows, written to the engine directly as a zombie's late write would have been before KIP-890).
 * Also Apache's ProducerPerformance with a transactional id.
 */
@ParameterizedClass(name = "transaction.version={0}")
@ValueSource(shorts = {1, 2})
class TransactionToolsIT {
    @Parameter
    short transactionVersion;

    static final long HANGING_PRODUCER = 424_242;

    @TempDir
    Path dir;

    private ExternalProcess tool(String mainClass, String... args) throws Exception {
        ExternalProcess p = ExternalProcess.java(dir, null, mainClass, args);
        assertThat(p.exitCode()).as("%s %s%n%s", mainClass, List.of(args), p).isZero();
        return p;
    }

    private ExternalProcess transactions(TestBroker b, String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = b.bootstrap();
        System.arraycopy(args, 0, all, 2, args.length);
        return tool("org.apache.kafka.tools.TransactionsCommand", all);
    }

    @Test
    void kafkaFeaturesDescribeShowsTheTransactionVersion() throws Exception {
        try (TestBroker b = new TestBroker(
                BrokerConfig.forTest(dir.resolve("data")).withRetentionCheckInterval(java.time.Duration.ZERO),
                io.kaas.broker.txn.TransactionConfig.DEFAULTS.withVersion(transactionVersion))) {
            String out = tool("org.apache.kafka.tools.FeatureCommand", "--bootstrap-server", b.bootstrap(), "describe")
                    .out();
            assertThat(out)
                    .containsPattern(
                            "Feature: transaction.version\\s+SupportedMinVersion: 0\\s+SupportedMaxVersion: 2\\s+"
                                    + "FinalizedVersionLevel: " + transactionVersion + "\\b");
        }
    }

    @Test
    void kafkaTransactionsListDescribeFindHangingAndAbort() throws Exception {
        try (TestBroker b = new TestBroker(
                BrokerConfig.forTest(dir.resolve("data")).withRetentionCheckInterval(java.time.Duration.ZERO),
                io.kaas.broker.txn.TransactionConfig.DEFAULTS.withVersion(transactionVersion))) {
            b.broker().engine().createTopic("tools-txn", 2, TopicConfig.EMPTY);
            TopicPartition hangingPartition = new TopicPartition("tools-txn", 1);
            b.broker()
                    .engine()
                    .partition(hangingPartition)
                    .append(TestBatches.transactional(HANGING_PRODUCER, (short) 0, 0, 2), Acks.ALL, -1)
                    .get();
            try (KafkaProducer<byte[], byte[]> p =
                    b.producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tool-txn"))) {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>("tools-txn", 0, null, "live".getBytes()))
                        .get();

                assertThat(transactions(b, "list").out()).contains("tool-txn", "Ongoing");
                assertThat(transactions(b, "describe", "--transactional-id", "tool-txn")
                                .out())
                        .contains("Ongoing", "tools-txn-0");
                assertThat(transactions(b, "describe-producers", "--topic", "tools-txn", "--partition", "1")
                                .out())
                        .contains(String.valueOf(HANGING_PRODUCER));
                String hanging =
                        transactions(b, "find-hanging", "--broker-id", "0").out();
                assertThat(hanging).contains(String.valueOf(HANGING_PRODUCER));
                assertThat(hanging.lines().filter(l -> l.startsWith("tools-txn")))
                        .hasSize(1); // the live one is not hanging

                transactions(b, "abort", "--topic", "tools-txn", "--partition", "1", "--start-offset", "0");
                PartitionState state =
                        b.broker().engine().partition(hangingPartition).state();
                assertThat(state.lastStableOffset())
                        .isEqualTo(state.highWatermark())
                        .isEqualTo(3);
                assertThat(transactions(b, "find-hanging", "--broker-id", "0").out())
                        .doesNotContain(String.valueOf(HANGING_PRODUCER));
                p.abortTransaction();
            }
        }
    }

    @Test
    void producerPerformanceWithATransactionalId() throws Exception {
        try (TestBroker b = new TestBroker(
                BrokerConfig.forTest(dir.resolve("data")).withRetentionCheckInterval(java.time.Duration.ZERO),
                io.kaas.broker.txn.TransactionConfig.DEFAULTS.withVersion(transactionVersion))) {
            String out = tool(
                            "org.apache.kafka.tools.ProducerPerformance",
                            "--topic",
                            "perf-txn",
                            "--num-records",
                            "2000",
                            "--record-size",
                            "100",
                            "--throughput",
                            "-1",
                            "--transactional-id",
                            "perf",
                            "--transaction-duration-ms",
                            "100",
                            "--producer-props",
                            "bootstrap.servers=" + b.bootstrap(),
                            "acks=all")
                    .out();
            assertThat(out).contains("2000 records sent");
            PartitionState state = b.broker()
                    .engine()
                    .partition(new TopicPartition("perf-txn", 0))
                    .state();
            assertThat(state.lastStableOffset())
                    .isEqualTo(state.highWatermark())
                    .isGreaterThan(2000);
        }
    }
}
