package io.kaas.bench;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Failover time of several {@code kaas serve} over one shared directory: from the signal sent to the
 * broker leading a partition to the first acks=all produce to that partition acknowledged by its new owner.
 *
 * <p>Usage: {@code FailoverProbe <bootstrap> <topic> <victimBrokerId> <victimPid> <KILL|STOP>}. Finds a partition the
 * victim leads, acknowledges 20 records to it (warm connection and metadata), sends the signal with {@code kill},
 * then sends one record (an idempotent producer retries it until a broker acknowledges it) and prints
 * {@code failover_ms=N leader_after=ID}. The producer refreshes metadata every 200 ms and backs off at most 200 ms,
 * so the client adds little to what the cluster takes. A stopped victim is left stopped (the caller resumes it).
 */
public final class FailoverProbe {
    private FailoverProbe() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: FailoverProbe <bootstrap> <topic> <victimBrokerId> <victimPid> <KILL|STOP>");
            System.exit(2);
        }
        String bootstrap = args[0], topic = args[1], signal = args[4];
        int victim = Integer.parseInt(args[2]);
        long pid = Long.parseLong(args[3]);
        int partition;
        try (Admin admin = admin(bootstrap)) {
            partition = ledBy(admin, topic, victim);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "200");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "20");
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "200");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        byte[] value = new byte[100];
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(topic, partition, null, value)).get(30, TimeUnit.SECONDS);
            }
            long signalled = System.nanoTime();
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
            }
            producer.send(new ProducerRecord<>(topic, partition, null, value)).get(120, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - signalled) / 1_000_000;
            int after = -1;
            try (Admin admin = admin(bootstrap)) {
                after = leader(admin, topic, partition);
            } catch (Exception e) {
                System.err.println("leader after the failover unknown: " + e);
            }
            System.out.println("failover_ms=" + ms + " partition=" + partition + " leader_after=" + after);
        }
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10000,
                AdminClientConfig.METADATA_MAX_AGE_CONFIG, 500));
    }

    private static TopicDescription describe(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    }

    /** A partition {@code broker} leads, waiting up to 90 s for one (a broker that joined takes its share). */
    private static int ledBy(Admin admin, String topic, int broker) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            try {
                for (TopicPartitionInfo i : describe(admin, topic).partitions()) {
                    if (i.leader() != null && i.leader().id() == broker) {
                        return i.partition();
                    }
                }
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // the cluster is still settling: ask again
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("broker " + broker + " leads no partition of " + topic + " after 90 s");
            }
            Thread.sleep(200); // polling a cluster that is rebalancing; a bench helper, not a test
        }
    }

    private static int leader(Admin admin, String topic, int partition) throws Exception {
        TopicPartitionInfo i = describe(admin, topic).partitions().get(partition);
        return i.leader() == null ? -1 : i.leader().id();
    }
}
