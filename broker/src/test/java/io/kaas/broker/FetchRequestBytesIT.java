package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kaas.broker.config.BrokerConfig;
import io.kaas.cluster.Endpoint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What incremental fetch sessions (KIP-227) save: a consumer of 1,000 partitions, with records arriving on
 * a few of them, fetching through a proxy that sums the Fetch request bytes the broker decodes — once with
 * sessions off ({@code max.incremental.fetch.session.cache.slots=0}: every fetch names all 1,000 partitions,
 * as kaas did before) and once with the default cache. Figures go to the test's output file.
 */
class FetchRequestBytesIT {
    private static final int PARTITIONS = 1000;
    private static final int FETCHES = 30;

    @TempDir
    Path dir;

    record Figures(int first, double steadyAverage, int fetches) {}

    @Test
    void sessionsShrinkSteadyStateFetchRequests() throws Exception {
        Figures without = measure(0);
        Figures with = measure(1000);
        System.out.printf(
                "Fetch request bytes, consumer of %d partitions, %d fetches: sessions off first %d, then %.0f per fetch;"
                        + " sessions on first %d, then %.0f per fetch%n",
                PARTITIONS, FETCHES, without.first(), without.steadyAverage(), with.first(), with.steadyAverage());
        assertThat(with.steadyAverage()).isLessThan(without.steadyAverage() / 20);
        assertThat(with.first()).isBetween((int) (without.first() * 0.9), (int) (without.first() * 1.1));
    }

    private Figures measure(int slots) throws Exception {
        AtomicReference<TestBroker> broker = new AtomicReference<>();
        try (FetchSizeProxy proxy =
                new FetchSizeProxy(() -> broker.get().broker().boundPort())) {
            BrokerConfig config = BrokerConfig.forTest(dir.resolve("data-" + slots))
                    .withInMemory(true)
                    .withFetchSessionCacheSlots(slots)
                    .withAdvertisedListeners(List.of(new Endpoint("PLAINTEXT", "127.0.0.1", proxy.port())));
            try (TestBroker b = new TestBroker(config)) {
                broker.set(b);
                try (Admin admin = b.admin()) {
                    admin.createTopics(List.of(new NewTopic("wide", PARTITIONS, (short) 1)))
                            .all()
                            .get();
                }
                List<TopicPartition> all = IntStream.range(0, PARTITIONS)
                        .mapToObj(p -> new TopicPartition("wide", p))
                        .toList();
                try (KafkaConsumer<byte[], byte[]> c = b.consumer(Map.of(
                                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                                20,
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                "127.0.0.1:" + proxy.port()));
                        KafkaProducer<byte[], byte[]> p = b.producer(Map.of())) {
                    c.assign(all);
                    List<Integer> received = new ArrayList<>();
                    int[] sent = {0};
                    await().atMost(Duration.ofSeconds(40)).until(() -> {
                        // A record on one of ten partitions now and then: the consumer moves on those only.
                        if (proxy.fetchSizes().size() % 3 == 0) {
                            p.send(new ProducerRecord<>("wide", (sent[0]++ % 10) * 97, null, new byte[] {1}));
                        }
                        c.poll(Duration.ofMillis(20)).forEach(r -> received.add(r.partition()));
                        return proxy.fetchSizes().size() >= FETCHES && !received.isEmpty();
                    });
                }
            }
            List<Integer> sizes = proxy.fetchSizes().subList(0, FETCHES);
            double steady = sizes.subList(1, sizes.size()).stream()
                    .mapToInt(Integer::intValue)
                    .average()
                    .orElseThrow();
            return new Figures(sizes.get(0), steady, sizes.size());
        }
    }
}
