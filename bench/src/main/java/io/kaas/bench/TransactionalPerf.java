package io.kaas.bench;

import java.util.Arrays;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Transactional throughput with transactions of a fixed number of records (bench/txn.sh's row):
 * {@code ProducerPerformance --transactional-id} ends transactions by time, not by count, so it cannot
 * say "transactions of 100 records". One producer, {@code acks=all}, a transactional id of its own;
 * each transaction sends its records round-robin over the topic's partitions, then commits (so every
 * commit writes one marker per partition). Prints one line:
 * {@code txn-perf: <records> records, <transactions> transactions in <s> s: <r> records/s, <t> txn/s, commit p50 <ms> ms p99 <ms> ms}.
 *
 * <p>Usage: {@code TransactionalPerf <bootstrap> <topic> <partitions> <transactions> <records-per-txn> <record-bytes>}.
 * Exit 0 when every transaction committed; an exception (and exit 1) otherwise.
 */
public final class TransactionalPerf {
    private TransactionalPerf() {
    }

    public static void main(String[] args) {
        String bootstrap = args[0];
        String topic = args[1];
        int partitions = Integer.parseInt(args[2]);
        int transactions = Integer.parseInt(args[3]);
        int perTxn = Integer.parseInt(args[4]);
        byte[] value = new byte[Integer.parseInt(args[5])];
        Arrays.fill(value, (byte) 'x');
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-txn-" + UUID.randomUUID());
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        long[] commitNanos = new long[transactions];
        long started;
        long elapsed;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            started = System.nanoTime();
            for (int t = 0; t < transactions; t++) {
                producer.beginTransaction();
                for (int i = 0; i < perTxn; i++) {
                    producer.send(new ProducerRecord<>(topic, i % partitions, null, value));
                }
                long commit = System.nanoTime();
                producer.commitTransaction();
                commitNanos[t] = System.nanoTime() - commit;
            }
            elapsed = System.nanoTime() - started;
        }
        Arrays.sort(commitNanos);
        double seconds = elapsed / 1e9;
        long records = (long) transactions * perTxn;
        System.out.printf("txn-perf: %d records, %d transactions in %.2f s: %.0f records/s, %.1f txn/s, commit p50 %.1f ms p99 %.1f ms%n",
                records, transactions, seconds, records / seconds, transactions / seconds,
                commitNanos[transactions / 2] / 1e6, commitNanos[Math.min(transactions - 1, (int) (transactions * 0.99))] / 1e6);
    }
}
