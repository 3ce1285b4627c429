package io.kaas.cluster.etcd;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchResponse;
import io.kaas.cluster.Assignment;
import io.kaas.cluster.BrokerRegistration;
import io.kaas.cluster.ClusterStore;
import io.kaas.cluster.CoordinationException;
import io.kaas.cluster.CoordinatorSlots;
import io.kaas.cluster.Versioned;
import io.kaas.storage.TopicPartition;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link ClusterStore} on etcd v3 (jetcd). Keys live under {@code /kaas/<cluster id>/}:
 * <pre>
 *   brokers/&lt;id&gt;            {"brokerId","host","port"}, under the broker's lease
 *   controller               etcd's election (concurrency API) among the brokers' leases
 *   assignment               {"owners":{"&lt;topic&gt;":[owner id per partition]}}
 *   topics/&lt;topic&gt;          partition count
 *   epochs/&lt;topic&gt;/&lt;n&gt;      the partition's leader epoch
 *   holders/&lt;topic&gt;/&lt;n&gt;     the broker that has the partition open, under its lease (gone with it)
 *   producer-ids             the first producer id no broker has reserved
 * </pre>
 * Coordinator slots ({@link CoordinatorSlots}) are in the assignment, {@code epochs/} (the coordinator epoch) and
 * {@code holders/} like partitions, as {@code __consumer_offsets/<n>} and {@code __transaction_state/<n>}.
 * A key's version for compare-and-set is its mod revision (0 when absent, which is also what etcd compares
 * a missing key against). Every call waits at most {@code timeout}.
 */
public final class EtcdClusterStore implements ClusterStore {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Client client;
    private final String prefix;
    private final Duration timeout;

    private EtcdClusterStore(Client client, String clusterId, Duration timeout) {
        this.client = client;
        this.prefix = "/kaas/" + clusterId + "/";
        this.timeout = timeout;
    }

    /**
     * A store on the etcd cluster at {@code endpoints} ({@code host:port}, plain HTTP/2), checked with one
     * read so an unreachable etcd fails here, not at the first renewal.
     *
     * @throws CoordinationException when etcd does not answer within {@code timeout}
     */
    public static EtcdClusterStore connect(List<String> endpoints, String clusterId, Duration timeout) {
        List<URI> uris = new ArrayList<>();
        for (String e : endpoints) {
            uris.add(URI.create(e.contains("://") ? e : "http://" + e));
        }
        Client client = Client.builder()
                .endpoints(uris)
                .connectTimeout(timeout)
                .retryDelay(50)
                .retryMaxDelay(Math.max(100, timeout.toMillis() / 4))
                .retryMaxDuration(timeout)
                .keepaliveTime(Duration.ofSeconds(5))
                .keepaliveTimeout(timeout)
                .build();
        EtcdClusterStore store = new EtcdClusterStore(client, clusterId, timeout);
        try {
            store.await(client.getKVClient().get(store.key("assignment")), "reach etcd at " + endpoints);
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return store;
    }

    @Override
    public long grantLease(Duration ttl) {
        return await(client.getLeaseClient().grant(Math.max(1, ttl.toSeconds())), "grant a lease")
                .getID();
    }

    @Override
    public Duration renewLease(long lease) {
        LeaseKeepAliveResponse r;
        try {
            r = await(client.getLeaseClient().keepAliveOnce(lease), "renew lease " + Long.toHexString(lease));
        } catch (CoordinationException e) {
            if (e.getCause() != null
                    && String.valueOf(e.getCause().getMessage()).contains("requested lease not found")) {
                return Duration.ZERO;
            }
            throw e;
        }
        return r.getTTL() <= 0 ? Duration.ZERO : Duration.ofSeconds(r.getTTL());
    }

    @Override
    public void revokeLease(long lease) {
        await(client.getLeaseClient().revoke(lease), "revoke lease " + Long.toHexString(lease));
    }

    @Override
    public boolean register(BrokerRegistration broker, long lease) {
        ByteSequence k = key("brokers/" + broker.brokerId());
        return await(
                        client.getKVClient()
                                .txn()
                                .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                                .Then(Op.put(
                                        k,
                                        bytes(json(broker)),
                                        PutOption.builder().withLeaseId(lease).build()))
                                .commit(),
                        "register broker " + broker.brokerId())
                .isSucceeded();
    }

    @Override
    public Map<Integer, BrokerRegistration> brokers() {
        Map<Integer, BrokerRegistration> out = new TreeMap<>();
        for (KeyValue kv : list("brokers/")) {
            BrokerRegistration b = parse(kv.getValue(), BrokerRegistration.class);
            out.put(b.brokerId(), b);
        }
        return out;
    }

    @Override
    public CompletableFuture<Void> campaign(int brokerId, long lease) {
        return client.getElectionClient()
                .campaign(key("controller"), lease, bytes(Integer.toString(brokerId)))
                .thenApply(r -> null);
    }

    @Override
    public Versioned<Assignment> assignment() {
        GetResponse r = await(client.getKVClient().get(key("assignment")), "read the assignment");
        if (r.getKvs().isEmpty()) {
            return new Versioned<>(Assignment.EMPTY, 0);
        }
        KeyValue kv = r.getKvs().get(0);
        return new Versioned<>(parse(kv.getValue(), Assignment.class), kv.getModRevision());
    }

    @Override
    public boolean compareAndSetAssignment(long expectedVersion, Assignment next) {
        return compareAndSet(key("assignment"), expectedVersion, json(next), "write the assignment");
    }

    @Override
    public Map<String, Integer> topics() {
        Map<String, Integer> out = new TreeMap<>();
        int cut = (prefix + "topics/").length();
        for (KeyValue kv : list("topics/")) {
            out.put(
                    kv.getKey().toString(StandardCharsets.UTF_8).substring(cut),
                    Integer.parseInt(kv.getValue().toString(StandardCharsets.UTF_8)));
        }
        return out;
    }

    @Override
    public void publishTopic(String topic, int partitions) {
        await(
                client.getKVClient().put(key("topics/" + topic), bytes(Integer.toString(partitions))),
                "publish topic " + topic);
    }

    @Override
    public void unpublishTopic(String topic) {
        await(client.getKVClient().delete(key("topics/" + topic)), "unpublish topic " + topic);
    }

    @Override
    public Versioned<Integer> epoch(TopicPartition tp) {
        GetResponse r = await(client.getKVClient().get(epochKey(tp)), "read the epoch of " + tp);
        if (r.getKvs().isEmpty()) {
            return new Versioned<>(0, 0);
        }
        KeyValue kv = r.getKvs().get(0);
        return new Versioned<>(Integer.parseInt(kv.getValue().toString(StandardCharsets.UTF_8)), kv.getModRevision());
    }

    @Override
    public boolean claim(TopicPartition tp, long expectedEpochVersion, int nextEpoch, int brokerId, long lease) {
        ByteSequence epoch = epochKey(tp);
        ByteSequence holder = holderKey(tp);
        return await(
                        client.getKVClient()
                                .txn()
                                .If(
                                        new Cmp(epoch, Cmp.Op.EQUAL, CmpTarget.modRevision(expectedEpochVersion)),
                                        new Cmp(holder, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                                .Then(
                                        Op.put(epoch, bytes(Integer.toString(nextEpoch)), PutOption.DEFAULT),
                                        Op.put(
                                                holder,
                                                bytes(Integer.toString(brokerId)),
                                                PutOption.builder()
                                                        .withLeaseId(lease)
                                                        .build()))
                                .commit(),
                        "claim " + tp)
                .isSucceeded();
    }

    @Override
    public void release(TopicPartition tp, int brokerId) {
        ByteSequence holder = holderKey(tp);
        await(
                client.getKVClient()
                        .txn()
                        .If(new Cmp(holder, Cmp.Op.EQUAL, CmpTarget.value(bytes(Integer.toString(brokerId)))))
                        .Then(Op.delete(holder, io.etcd.jetcd.options.DeleteOption.DEFAULT))
                        .commit(),
                "release " + tp);
    }

    @Override
    public java.util.OptionalInt holder(TopicPartition tp) {
        GetResponse r = await(client.getKVClient().get(holderKey(tp)), "read the holder of " + tp);
        return r.getKvs().isEmpty()
                ? java.util.OptionalInt.empty()
                : java.util.OptionalInt.of(
                        Integer.parseInt(r.getKvs().get(0).getValue().toString(StandardCharsets.UTF_8)));
    }

    @Override
    public long allocateProducerIdBlock(long size) {
        ByteSequence k = key("producer-ids");
        while (true) {
            GetResponse r = await(client.getKVClient().get(k), "read the producer-id counter");
            long start = r.getKvs().isEmpty()
                    ? 0
                    : Long.parseLong(r.getKvs().get(0).getValue().toString(StandardCharsets.UTF_8));
            long version = r.getKvs().isEmpty() ? 0 : r.getKvs().get(0).getModRevision();
            if (compareAndSet(k, version, Long.toString(start + size), "reserve producer ids")) {
                return start;
            }
        }
    }

    @Override
    public AutoCloseable watch(Runnable onChange, Runnable onLost) {
        WatchOption option =
                WatchOption.builder().isPrefix(true).withCreateNotify(true).build();
        Watch.Watcher w = client.getWatchClient()
                .watch(
                        bytes(prefix),
                        option,
                        Watch.listener((WatchResponse r) -> onChange.run(), (Throwable t) -> onLost.run(), onLost));
        return w::close;
    }

    @Override
    public void close() {
        client.close();
    }

    private boolean compareAndSet(ByteSequence k, long expectedVersion, String value, String what) {
        return await(
                        client.getKVClient()
                                .txn()
                                .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.modRevision(expectedVersion)))
                                .Then(Op.put(k, bytes(value), PutOption.DEFAULT))
                                .commit(),
                        what)
                .isSucceeded();
    }

    private List<KeyValue> list(String under) {
        return await(
                        client.getKVClient()
                                .get(
                                        key(under),
                                        GetOption.builder().isPrefix(true).build()),
                        "list " + under)
                .getKvs();
    }

    private ByteSequence holderKey(TopicPartition tp) {
        return key("holders/" + tp.topic() + "/" + tp.partition());
    }

    private ByteSequence epochKey(TopicPartition tp) {
        return key("epochs/" + tp.topic() + "/" + tp.partition());
    }

    private ByteSequence key(String suffix) {
        return bytes(prefix + suffix);
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static String json(Object o) {
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> T parse(ByteSequence b, Class<T> type) {
        try {
            return JSON.readValue(b.getBytes(), type);
        } catch (java.io.IOException e) {
            throw new CoordinationException(
                    "etcd holds a value kaas cannot read as " + type.getSimpleName() + ": "
                            + b.toString(StandardCharsets.UTF_8),
                    e);
        }
    }

    private <T> T await(CompletableFuture<T> f, String what) {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw new CoordinationException("interrupted while trying to " + what, e);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new CoordinationException(
                    "etcd did not answer within " + timeout.toMillis() + " ms: cannot " + what, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new CoordinationException("cannot " + what + ": " + cause.getMessage(), cause);
        }
    }
}
