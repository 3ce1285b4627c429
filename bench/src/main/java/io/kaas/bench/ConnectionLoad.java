package io.kaas.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Thousands of Kafka connections from one JVM (bench/connections.sh): raw requests built with kafka-clients'
 * generated message classes over Netty, a handful of event-loop threads for all of them, so that two cores can
 * drive ten thousand connections and still leave one core to the broker.
 *
 * <p>{@code hold}: opens {@code --producers} connections that each send an acks=all Produce of one prebuilt
 * record batch {@code --rate} times a second (latency into an HdrHistogram, from send to response),
 * {@code --fetchers} that long-poll Fetch on a topic nobody writes ({@code --fetch-wait-ms}), and {@code --idle}
 * that only said ApiVersions; holds them {@code --seconds}, then reports how many are still open, the errors, the
 * produce percentiles and, with {@code --broker-pid}, the broker's {@link BrokerFootprint}.
 *
 * <p>{@code storm}: {@code --rate} new connections a second for {@code --seconds} (at most {@code --max-in-flight}
 * opening at once, so that an overloaded broker is measured by the rate it serves), each connect (TLS and a
 * SCRAM login with {@code --tls --user --password [--mechanism SCRAM-SHA-256]}, SCRAM-SHA-512 otherwise), ApiVersions, close.
 *
 * <p>{@code footprint --broker-pid P}: the broker's {@link BrokerFootprint} alone (the baseline before connecting).
 *
 * <p>Output: {@code key value} lines on stdout. Exit 0 when every connection was held (or every storm connection
 * completed) with no error, 1 otherwise.
 */
public final class ConnectionLoad {
    private static final short API_VERSIONS_VERSION = 3;
    private static final short METADATA_VERSION = 12;
    private static final short PRODUCE_VERSION = 9;
    private static final short FETCH_VERSION = 12;

    private final Map<String, String> args;
    private final String host;
    private final int port;
    private final EventLoopGroup loops;
    private final SslContext tls;
    private final ScramLogin scram;
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final List<RawKafkaChannel> connections = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger established = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private volatile boolean stopping;

    private ConnectionLoad(Map<String, String> args) throws Exception {
        this.args = args;
        String[] hp = args.getOrDefault("bootstrap", "127.0.0.1:9092").split(":");
        this.host = hp[0];
        this.port = Integer.parseInt(hp[1]);
        this.loops = new MultiThreadIoEventLoopGroup(
                number("threads", 1), new DefaultThreadFactory("connection-load"), NioIoHandler.newFactory());
        // A benchmark on loopback against a throw-away self-signed certificate: trust it as it is.
        this.tls = args.containsKey("tls")
                ? SslContextBuilder.forClient()
                        .trustManager(InsecureTrustManagerFactory.INSTANCE)
                        .build()
                : null;
        this.scram = args.containsKey("user")
                ? new ScramLogin(
                        args.getOrDefault("mechanism", "SCRAM-SHA-512"), args.get("user"), args.get("password"))
                : null;
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (int i = 1; i < argv.length; i++) {
            String key = argv[i].replaceFirst("^--", "");
            boolean flag = i + 1 >= argv.length || argv[i + 1].startsWith("--");
            args.put(key, flag ? "true" : argv[++i]);
        }
        ConnectionLoad load = new ConnectionLoad(args);
        boolean ok;
        try {
            ok = switch (argv[0]) {
                case "storm" -> load.storm();
                case "hold" -> load.hold();
                case "footprint" -> {
                    BrokerFootprint.of(Long.parseLong(args.get("broker-pid")))
                            .forEach((k, v) -> System.out.println(k + " " + v));
                    yield true;
                }
                default -> throw new IllegalArgumentException("hold, storm or footprint, not " + argv[0]);
            };
        } finally {
            load.loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        System.exit(ok ? 0 : 1);
    }

    private int number(String key, int otherwise) {
        String v = args.get(key);
        return v == null ? otherwise : Integer.parseInt(v);
    }

    private void error(String why) {
        errors.computeIfAbsent(why.replace(' ', '_'), k -> new LongAdder()).increment();
    }

    private static String why(Throwable e) {
        Throwable t = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        return t.getClass().getSimpleName() + ":"
                + String.valueOf(t.getMessage()).replaceAll("\\s+", "_");
    }

    /** Connects, then TLS, SCRAM and ApiVersions as configured; completes with the connection ready for requests. */
    private CompletableFuture<RawKafkaChannel> open() {
        RawKafkaChannel c = new RawKafkaChannel();
        CompletableFuture<RawKafkaChannel> ready = new CompletableFuture<>();
        Bootstrap b = new Bootstrap()
                .group(loops)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), host, port));
                        }
                        ch.pipeline()
                                .addLast(new LengthFieldBasedFrameDecoder(64 << 20, 0, 4, 0, 4))
                                .addLast(c);
                    }
                });
        ChannelFuture connect = b.connect(host, port);
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                ready.completeExceptionally(f.cause());
                return;
            }
            CompletableFuture<Void> secured = new CompletableFuture<>();
            SslHandler ssl = connect.channel().pipeline().get(SslHandler.class);
            if (ssl == null) {
                secured.complete(null);
            } else {
                ssl.handshakeFuture().addListener(h -> {
                    if (h.isSuccess()) {
                        secured.complete(null);
                    } else {
                        secured.completeExceptionally(h.cause());
                    }
                });
            }
            secured.thenCompose(v -> scram == null ? CompletableFuture.completedFuture(null) : scram.login(c))
                    .thenCompose(v -> c.send(
                            ApiKeys.API_VERSIONS,
                            API_VERSIONS_VERSION,
                            new ApiVersionsRequestData()
                                    .setClientSoftwareName(RawKafkaChannel.CLIENT_ID)
                                    .setClientSoftwareVersion("1")))
                    .whenComplete((body, e) -> {
                        if (e != null) {
                            connect.channel().close();
                            ready.completeExceptionally(e);
                            return;
                        }
                        short code = new ApiVersionsResponseData(new ByteBufferAccessor(body), API_VERSIONS_VERSION)
                                .errorCode();
                        if (code != Errors.NONE.code()) {
                            connect.channel().close();
                            ready.completeExceptionally(
                                    new IllegalStateException("ApiVersions " + Errors.forCode(code)));
                        } else {
                            ready.complete(c);
                        }
                    });
        });
        return ready;
    }

    /** Opens {@code n} connections at {@code perSecond}, in ticks of 10 ms; {@code role} starts each one's work. */
    private void ramp(
            int n, int perSecond, java.util.function.IntFunction<java.util.function.Consumer<RawKafkaChannel>> role)
            throws InterruptedException {
        long start = System.nanoTime();
        int started = 0;
        while (started < n) {
            long due = Math.min(n, (System.nanoTime() - start) * perSecond / 1_000_000_000L + 1);
            for (; started < due; started++) {
                java.util.function.Consumer<RawKafkaChannel> work = role.apply(started);
                open().whenComplete((c, e) -> {
                    if (e != null) {
                        failed.incrementAndGet();
                        error("connect:" + why(e));
                        return;
                    }
                    connections.add(c);
                    established.incrementAndGet();
                    c.closed().thenRun(() -> {
                        if (!stopping) {
                            error("closed_by_broker");
                        }
                    });
                    c.channel().eventLoop().execute(() -> work.accept(c));
                });
            }
            Thread.sleep(10);
        }
    }

    private boolean hold() throws Exception {
        int producers = number("producers", 1000);
        int fetchers = number("fetchers", 0);
        int idle = number("idle", 0);
        int total = producers + fetchers + idle;
        int rate = number("rate", 1);
        int partitions = number("partitions", 1);
        int fetchWait = number("fetch-wait-ms", 5000);
        String topic = args.getOrDefault("topic", "connections");
        String quiet = args.getOrDefault("quiet-topic", "connections-quiet");
        byte[] value = new byte[number("record-bytes", 100)];
        ByteBuffer records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(value))
                .buffer();
        Recorder latencies = new Recorder(3);
        LongAdder produced = new LongAdder();
        LongAdder fetched = new LongAdder();
        Map<Integer, ByteBuf> produceFrames = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            ProduceRequestData.TopicProduceDataCollection data = new ProduceRequestData.TopicProduceDataCollection();
            data.add(new ProduceRequestData.TopicProduceData()
                    .setName(topic)
                    .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                            .setIndex(p)
                            .setRecords(MemoryRecords.readableRecords(records.duplicate())))));
            produceFrames.put(
                    p,
                    RawKafkaChannel.frame(
                            ApiKeys.PRODUCE,
                            PRODUCE_VERSION,
                            new ProduceRequestData()
                                    .setAcks((short) -1)
                                    .setTimeoutMs(30_000)
                                    .setTopicData(data)));
        }
        ByteBuf fetchFrame = RawKafkaChannel.frame(
                ApiKeys.FETCH,
                FETCH_VERSION,
                new FetchRequestData()
                        .setReplicaId(-1)
                        .setMaxWaitMs(fetchWait)
                        .setMinBytes(1)
                        .setMaxBytes(1 << 20)
                        .setSessionId(0)
                        .setSessionEpoch(-1)
                        .setTopics(List.of(new FetchRequestData.FetchTopic()
                                .setTopic(quiet)
                                .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                        .setPartition(0)
                                        .setFetchOffset(0)
                                        .setPartitionMaxBytes(1 << 20))))));
        long periodNanos = 1_000_000_000L / Math.max(1, rate);
        long rampStart = System.nanoTime();
        ramp(total, number("connect-rate", 2000), i -> {
            if (i < producers) {
                ByteBuf frame = produceFrames.get(i % partitions);
                return c -> c.send(
                                ApiKeys.METADATA,
                                METADATA_VERSION,
                                new MetadataRequestData()
                                        .setTopics(
                                                List.of(new MetadataRequestData.MetadataRequestTopic().setName(topic))))
                        .whenComplete((body, e) -> {
                            if (e != null) {
                                error("metadata:" + why(e));
                                return;
                            }
                            short code = new MetadataResponseData(new ByteBufferAccessor(body), METADATA_VERSION)
                                    .topics()
                                    .iterator()
                                    .next()
                                    .errorCode();
                            if (code != 0) {
                                error("metadata:" + Errors.forCode(code));
                            }
                            c.channel()
                                    .eventLoop()
                                    .scheduleAtFixedRate(
                                            () -> produce(c, frame, latencies, produced),
                                            ThreadLocalRandom.current().nextLong(periodNanos),
                                            periodNanos,
                                            TimeUnit.NANOSECONDS);
                        });
            }
            if (i < producers + fetchers) {
                return c -> fetch(c, fetchFrame, fetched);
            }
            return c -> {};
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(number("ramp-timeout-seconds", 300));
        while (established.get() + failed.get() < total && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        long rampMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - rampStart);
        latencies.reset();
        long producedBefore = produced.sum();
        Thread.sleep(TimeUnit.SECONDS.toMillis(number("seconds", 30)));
        Histogram h = latencies.getIntervalHistogram();
        long producedInHold = produced.sum() - producedBefore;
        int held = 0;
        synchronized (connections) {
            for (RawKafkaChannel c : connections) {
                held += c.open() ? 1 : 0;
            }
        }
        Map<String, String> out = new java.util.LinkedHashMap<>();
        out.put("connections_wanted", Integer.toString(total));
        out.put("connections_established", Integer.toString(established.get()));
        out.put("connections_held", Integer.toString(held));
        out.put("ramp_ms", Long.toString(rampMs));
        out.put("produce_requests", Long.toString(producedInHold));
        out.put("fetch_responses", Long.toString(fetched.sum()));
        out.put("produce_p50_ms", ms(h.getValueAtPercentile(50)));
        out.put("produce_p99_ms", ms(h.getValueAtPercentile(99)));
        out.put("produce_p999_ms", ms(h.getValueAtPercentile(99.9)));
        out.put("produce_max_ms", ms(h.getMaxValue()));
        if (args.containsKey("broker-pid")) {
            out.putAll(BrokerFootprint.of(Long.parseLong(args.get("broker-pid"))));
        }
        new TreeMap<>(errors).forEach((k, v) -> out.put("error_" + k, Long.toString(v.sum())));
        out.forEach((k, v) -> System.out.println(k + " " + v));
        stopping = true;
        synchronized (connections) {
            connections.forEach(c -> c.channel().close());
        }
        return held == total && errors.isEmpty();
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
    }

    private void produce(RawKafkaChannel c, ByteBuf frame, Recorder latencies, LongAdder produced) {
        if (!c.open() || stopping) {
            return;
        }
        long sent = System.nanoTime();
        c.sendFrame(ApiKeys.PRODUCE, PRODUCE_VERSION, frame).whenComplete((body, e) -> {
            if (e != null) {
                if (!stopping) {
                    error("produce:" + why(e));
                }
                return;
            }
            latencies.recordValue(System.nanoTime() - sent);
            produced.increment();
            ProduceResponseData r = new ProduceResponseData(new ByteBufferAccessor(body), PRODUCE_VERSION);
            r.responses()
                    .forEach(t -> t.partitionResponses().forEach(p -> {
                        if (p.errorCode() != 0) {
                            error("produce:" + Errors.forCode(p.errorCode()));
                        }
                    }));
        });
    }

    /** One long-poll after the other for as long as the connection lives. */
    private void fetch(RawKafkaChannel c, ByteBuf frame, LongAdder fetched) {
        if (!c.open() || stopping) {
            return;
        }
        c.sendFrame(ApiKeys.FETCH, FETCH_VERSION, frame).whenComplete((body, e) -> {
            if (e != null) {
                if (!stopping) {
                    error("fetch:" + why(e));
                }
                return;
            }
            fetched.increment();
            FetchResponseData r = new FetchResponseData(new ByteBufferAccessor(body), FETCH_VERSION);
            if (r.errorCode() != 0) {
                error("fetch:" + Errors.forCode(r.errorCode()));
            }
            r.responses()
                    .forEach(t -> t.partitions().forEach(p -> {
                        if (p.errorCode() != 0) {
                            error("fetch:" + Errors.forCode(p.errorCode()));
                        }
                    }));
            fetch(c, frame, fetched);
        });
    }

    private boolean storm() throws Exception {
        int rate = number("rate", 1000);
        int seconds = number("seconds", 10);
        int total = rate * seconds;
        Recorder latencies = new Recorder(3);
        AtomicInteger done = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        // Opens in progress are capped: past what the broker (or this JVM) can handshake, an open-loop storm
        // only queues handshakes that time out, and measures the collapse instead of the rate that is served.
        int maxInFlight = number("max-in-flight", 200);
        AtomicInteger inFlight = new AtomicInteger();
        long start = System.nanoTime();
        for (int started = 0; started < total; ) {
            long due = Math.min(total, (System.nanoTime() - start) * rate / 1_000_000_000L + 1);
            for (; started < due && inFlight.get() < maxInFlight; started++) {
                inFlight.incrementAndGet();
                long t0 = System.nanoTime();
                open().whenComplete((c, e) -> {
                    if (e != null) {
                        error("storm:" + why(e));
                    } else {
                        latencies.recordValue(System.nanoTime() - t0);
                        completed.incrementAndGet();
                        c.channel().close();
                    }
                    inFlight.decrementAndGet();
                    done.incrementAndGet();
                });
            }
            Thread.sleep(inFlight.get() >= maxInFlight ? 1 : 10);
        }
        long offeredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (done.get() < total && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Histogram h = latencies.getIntervalHistogram();
        System.out.println("storm_wanted " + total);
        System.out.println("storm_offered_ms " + offeredMs);
        System.out.println("storm_completed " + completed.get());
        System.out.println("storm_elapsed_ms " + elapsedMs);
        System.out.println("storm_connections_per_s "
                + String.format(Locale.ROOT, "%.0f", completed.get() * 1000.0 / Math.max(1, elapsedMs)));
        System.out.println("storm_connect_p50_ms " + ms(h.getValueAtPercentile(50)));
        System.out.println("storm_connect_p99_ms " + ms(h.getValueAtPercentile(99)));
        new TreeMap<>(errors).forEach((k, v) -> System.out.println("error_" + k + " " + v.sum()));
        return completed.get() == total && errors.isEmpty();
    }
}
