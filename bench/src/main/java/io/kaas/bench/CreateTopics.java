package io.kaas.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * Creates the benchmark's topics and waits until every partition has a leader, so the first
 * measured send does not pay for metadata retries.
 *
 * <p>Usage: {@code CreateTopics <bootstrap> <name>:<partitions>[:<key>=<value>,...] ...}, e.g.
 * {@code durable:8:flush.messages=1}. Replication factor is 1 (single node). Exit 0 when all exist
 * with leaders, 1 otherwise (a topic that already exists is an error: data dirs are fresh).
 */
public final class CreateTopics {

    private static final Duration LEADER_WAIT = Duration.ofSeconds(30);

    private CreateTopics() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 2) {
            System.err.println("usage: CreateTopics <bootstrap> <name>:<partitions>[:<key>=<value>,...] ...");
            System.exit(2);
        }
        List<NewTopic> topics = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            topics.add(parseSpec(args[i]));
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]))) {
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
            awaitLeaders(admin, topics.stream().map(NewTopic::name).toList());
            System.out.println("created " + topics.stream().map(NewTopic::name).toList() + " on " + args[0]);
        } catch (ExecutionException e) {
            System.err.println("creating topics on " + args[0] + " failed: " + e.getCause());
            System.exit(1);
        } catch (java.util.concurrent.TimeoutException e) {
            System.err.println("creating topics on " + args[0] + " timed out");
            System.exit(1);
        }
    }

    static NewTopic parseSpec(String spec) {
        String[] parts = spec.split(":", 3);
        if (parts.length < 2) {
            throw new IllegalArgumentException("topic spec must be <name>:<partitions>[:k=v,...], got " + spec);
        }
        Map<String, String> configs = new HashMap<>();
        if (parts.length == 3 && !parts[2].isEmpty()) {
            for (String kv : parts[2].split(",")) {
                String[] pair = kv.split("=", 2);
                if (pair.length != 2) {
                    throw new IllegalArgumentException("topic config must be key=value, got " + kv + " in " + spec);
                }
                configs.put(pair[0], pair[1]);
            }
        }
        return new NewTopic(parts[0], Optional.of(Integer.parseInt(parts[1])), Optional.of((short) 1)).configs(configs);
    }

    private static void awaitLeaders(Admin admin, List<String> names) throws InterruptedException, ExecutionException {
        Instant deadline = Instant.now().plus(LEADER_WAIT);
        while (true) {
            Map<String, TopicDescription> described;
            try {
                described = admin.describeTopics(names).allTopicNames().get(5, TimeUnit.SECONDS);
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                described = Map.of();
            }
            boolean allLed = described.size() == names.size() && described.values().stream()
                    .allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
            if (allLed) {
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new ExecutionException("partitions of " + names + " still have no leader after " + LEADER_WAIT, null);
            }
            // Leader election on a fresh single node takes milliseconds; poll gently until then.
            Thread.sleep(100);
        }
    }
}
