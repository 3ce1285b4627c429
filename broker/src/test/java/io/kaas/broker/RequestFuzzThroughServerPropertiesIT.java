package io.kaas.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kaas.broker.api.Uuids;
import io.kaas.storage.format.TopicConfig;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Decoder fuzzing through the real server: for every API version the broker advertises
 * (ApiVersions reads ServedApis), a valid request frame built with kafka-clients' generated classes
 * is mutated (byte flips, truncation, extension, length-field lies, random bodies) and sent over a
 * raw loopback socket, sometimes behind up to two valid frames of the same request in the same write.
 * The broker must answer the valid ones in order, then answer or close that connection within {@link #ANSWER_BOUND_MS}
 * (unless the frame, decoded as the broker would, is one Kafka lets stay silent: acks=0 Produce, a
 * long-poll Fetch, a parked JoinGroup/SyncGroup), no exception may reach the end of Netty's pipeline,
 * and a fresh connection must get an ApiVersions answer after every case.
 *
 * <p>Cases go round-robin over the API versions, so each gets tries / versions cases; shrinking is
 * off because a case's target comes from its position. A failure prints the target and the frame.
 */
class RequestFuzzThroughServerPropertiesIT {
    private static final int ANSWER_BOUND_MS = 5_000;
    private static final int TRIES = 3_000;

    private Path dir;
    private TestBroker broker;
    private CapturedLog log;
    private Uuid topicId;
    private final List<Target> targets = new ArrayList<>();
    private final Set<Target> covered = new HashSet<>();
    private int cases;
    private int answered;
    private int closed;
    /** Closes of connections that had sent a whole frame: the broker's choice, so each must be logged. */
    private int closedAfterWholeFrame;

    private int silent;

    /** One API at one version, with a valid request for it. */
    private record Target(ApiKeys api, short version) {
        @Override
        public String toString() {
            return api + " v" + version;
        }
    }

    @BeforeProperty
    void start() throws Exception {
        dir = Files.createTempDirectory("kaas-fuzz");
        log = new CapturedLog();
        broker = new TestBroker(dir);
        broker.broker().engine().createTopic("f", 2, TopicConfig.EMPTY);
        topicId =
                Uuids.toKafka(broker.broker().engine().topic("f").orElseThrow().topicId());
        try (RawKafkaConnection c = new RawKafkaConnection(broker.broker().boundPort())) {
            ApiVersionsResponseData versions = c.roundTrip(
                    ApiKeys.API_VERSIONS,
                    (short) 3,
                    new ApiVersionsRequestData().setClientSoftwareName("fuzz").setClientSoftwareVersion("1"));
            for (ApiVersionsResponseData.ApiVersion v : versions.apiKeys()) {
                for (short version = v.minVersion(); version <= v.maxVersion(); version++) {
                    Target t = new Target(ApiKeys.forId(v.apiKey()), version);
                    if (encodable(t)) {
                        targets.add(t);
                    }
                }
            }
        }
        targets.sort(Comparator.comparing((Target t) -> t.api().id).thenComparing(Target::version));
    }

    @AfterProperty
    void stop() throws IOException {
        try {
            System.out.printf(
                    "fuzz: %d frames over %d api versions: %d answered, %d closed, %d silent (acks=0 produce or long poll)%n",
                    cases, targets.size(), answered, closed, silent);
            assertThat(covered).as("every advertised api version was fuzzed").hasSameSizeAs(targets);
            assertThat(log.text())
                    .as("an exception reached the end of Netty's pipeline unhandled")
                    .doesNotContain("reached at the tail of the pipeline");
            long loggedCloses = log.text()
                    .lines()
                    .filter(l -> l.contains("closing connection from"))
                    .count();
            assertThat(loggedCloses)
                    .as("every connection the broker closed on a whole frame is logged with its reason")
                    .isGreaterThanOrEqualTo(closedAfterWholeFrame);
        } finally {
            broker.close();
            log.close();
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Property(tries = TRIES, shrinking = ShrinkingMode.OFF)
    void everyMutatedFrameIsAnsweredOrClosedAndTheBrokerKeepsServing(
            @ForAll("mutations") Mutation mutation, @ForAll @IntRange(min = 0, max = 2) int validBefore)
            throws Exception {
        Target target = targets.get(cases++ % targets.size());
        covered.add(target);
        byte[] frame = mutation.apply(frame(target, cases));
        String what = target + " after " + validBefore + " valid frame(s), " + mutation + " frame "
                + HexFormat.of().formatHex(frame, 0, Math.min(frame.length, 512));
        switch (exchange(target, validBefore, frame, what)) {
            case ANSWERED -> answered++;
            case CLOSED -> {
                closed++;
                if (holdsWholeFrame(frame)) {
                    closedAfterWholeFrame++;
                }
            }
            case NO_ANSWER -> {
                assertThat(mayStaySilent(frame))
                        .as("no answer and no close within %d ms: %s", ANSWER_BOUND_MS, what)
                        .isTrue();
                silent++;
            }
        }
        try (RawKafkaConnection c = new RawKafkaConnection(broker.broker().boundPort())) {
            ApiVersionsResponseData v = c.roundTrip(
                    ApiKeys.API_VERSIONS,
                    (short) 3,
                    new ApiVersionsRequestData().setClientSoftwareName("fuzz").setClientSoftwareVersion("1"));
            assertThat(v.errorCode()).as("ApiVersions after %s", what).isZero();
        }
    }

    private enum Outcome {
        ANSWERED,
        CLOSED,
        NO_ANSWER
    }

    /**
     * Sends {@code validBefore} valid frames of the same target, then the mutated one, in one write
     * on a fresh connection (clients pipeline; the broker must keep request order). When the mutated
     * bytes do not hold one whole frame the broker is right to wait for the rest, so we half-close:
     * it must then close. Responses that arrive must answer the valid frames first, in order; the
     * outcome is what follows them: a response, the end of the stream, or silence.
     */
    private Outcome exchange(Target target, int validBefore, byte[] mutated, String what) throws IOException {
        ByteBuffer out = ByteBuffer.allocate(validBefore * frame(target, 0).length + mutated.length);
        int[] validIds = new int[validBefore];
        for (int i = 0; i < validBefore; i++) {
            validIds[i] = 1_000_000 + i;
            out.put(frame(target, validIds[i]));
        }
        out.put(mutated);
        try (Socket s = new Socket("127.0.0.1", broker.broker().boundPort())) {
            s.setSoTimeout(ANSWER_BOUND_MS);
            DataInputStream in = new DataInputStream(s.getInputStream());
            int responses = 0;
            try {
                s.getOutputStream().write(out.array());
                s.getOutputStream().flush();
                if (!holdsWholeFrame(mutated)) {
                    s.shutdownOutput();
                }
                for (; responses < validBefore; responses++) {
                    assertThat(readResponseCorrelationId(in))
                            .as("response %d in request order: %s", responses, what)
                            .isEqualTo(validIds[responses]);
                }
                readResponseCorrelationId(in);
                return Outcome.ANSWERED;
            } catch (SocketTimeoutException e) {
                assertThat(responses)
                        .as("valid frames are answered within %d ms: %s", ANSWER_BOUND_MS, what)
                        .isEqualTo(validBefore);
                return Outcome.NO_ANSWER;
            } catch (EOFException e) {
                return Outcome.CLOSED;
            } catch (IOException e) {
                return Outcome.CLOSED; // reset: the broker closed while we were still writing
            }
        }
    }

    /** Reads one response frame whole; returns its correlation id (every response header starts with it). */
    private static int readResponseCorrelationId(DataInputStream in) throws IOException {
        int size = in.readInt();
        byte[] body = new byte[size];
        in.readFully(body);
        return ByteBuffer.wrap(body).getInt(0);
    }

    private static boolean holdsWholeFrame(byte[] bytes) {
        if (bytes.length < 4) {
            return false;
        }
        int declared = ByteBuffer.wrap(bytes).getInt(0);
        return declared >= 0 && declared <= bytes.length - 4;
    }

    /** Decodes the first frame as the broker does: may Kafka's protocol leave it unanswered for a while? */
    private static boolean mayStaySilent(byte[] bytes) {
        try {
            ByteBuffer frame =
                    ByteBuffer.wrap(bytes, 4, ByteBuffer.wrap(bytes).getInt(0)).slice();
            ApiKeys api = ApiKeys.forId(frame.getShort(0));
            short version = frame.getShort(2);
            ByteBufferAccessor reader = new ByteBufferAccessor(frame);
            new RequestHeaderData(reader, api.messageType.requestHeaderVersion(version));
            ApiMessage body = api.messageType.newRequest();
            body.read(reader, version);
            return switch (api) {
                case PRODUCE -> ((ProduceRequestData) body).acks() == 0;
                case FETCH -> ((FetchRequestData) body).maxWaitMs() > ANSWER_BOUND_MS - 1_000;
                case JOIN_GROUP, SYNC_GROUP -> true;
                default -> false;
            };
        } catch (RuntimeException notDecodable) {
            return false;
        }
    }

    // ------------------------------------------------------------------------------- valid frames

    private boolean encodable(Target t) {
        try {
            frame(t, 1);
            return true;
        } catch (RuntimeException defaultsNotValidAtThisVersion) {
            return false;
        }
    }

    private byte[] frame(Target t, int correlationId) {
        ApiMessage body = validRequest(t.api(), t.version());
        RequestHeaderData header = new RequestHeaderData()
                .setRequestApiKey(t.api().id)
                .setRequestApiVersion(t.version())
                .setCorrelationId(correlationId)
                .setClientId("fuzz");
        short hv = t.api().messageType.requestHeaderVersion(t.version());
        ObjectSerializationCache cache = new ObjectSerializationCache();
        MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, hv);
        body.addSize(size, cache, t.version());
        ByteBuffer buf = ByteBuffer.allocate(4 + size.totalSize());
        buf.putInt(size.totalSize());
        ByteBufferAccessor w = new ByteBufferAccessor(buf);
        header.write(w, cache, hv);
        body.write(w, cache, t.version());
        return buf.array();
    }

    /** Small realistic content where it reaches per-partition code; kafka-clients' defaults elsewhere. */
    private ApiMessage validRequest(ApiKeys api, short v) {
        return switch (api) {
            case PRODUCE -> {
                ProduceRequestData r =
                        new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000);
                r.topicData()
                        .add(new ProduceRequestData.TopicProduceData()
                                .setName(v < 13 ? "f" : "")
                                .setTopicId(v >= 13 ? topicId : Uuid.ZERO_UUID)
                                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                                        .setIndex(1)
                                        .setRecords(MemoryRecords.withRecords(
                                                Compression.NONE,
                                                new SimpleRecord("k".getBytes(), "fuzz".getBytes()))))));
                yield r;
            }
            case FETCH -> {
                FetchRequestData r = new FetchRequestData()
                        .setMaxWaitMs(0)
                        .setMinBytes(1)
                        .setReplicaId(-1)
                        .setMaxBytes(1 << 20);
                r.topics()
                        .add(new FetchRequestData.FetchTopic()
                                .setTopic(v < 13 ? "f" : "")
                                .setTopicId(v >= 13 ? topicId : Uuid.ZERO_UUID)
                                .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                        .setPartition(1)
                                        .setFetchOffset(0)
                                        .setPartitionMaxBytes(1 << 16))));
                yield r;
            }
            case LIST_OFFSETS ->
                new ListOffsetsRequestData()
                        .setReplicaId(-1)
                        .setTopics(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                .setName("f")
                                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                        .setPartitionIndex(1)
                                        .setTimestamp(-1)))));
            case METADATA ->
                new MetadataRequestData()
                        .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic()
                                .setName("f")
                                .setTopicId(Uuid.ZERO_UUID)));
            case OFFSET_COMMIT ->
                new OffsetCommitRequestData()
                        .setGroupId("fuzz-group")
                        .setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                                .setName("f")
                                .setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                        .setPartitionIndex(1)
                                        .setCommittedOffset(0)))));
            case OFFSET_FETCH ->
                v < 8
                        ? new OffsetFetchRequestData()
                                .setGroupId("fuzz-group")
                                .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic()
                                        .setName("f")
                                        .setPartitionIndexes(List.of(1))))
                        : new OffsetFetchRequestData()
                                .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                                        .setGroupId("fuzz-group")
                                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                                .setName("f")
                                                .setPartitionIndexes(List.of(1))))));
            case FIND_COORDINATOR ->
                new FindCoordinatorRequestData()
                        .setKey(v < 4 ? "fuzz-group" : "")
                        .setCoordinatorKeys(v >= 4 ? List.of("fuzz-group") : List.of());
            case DESCRIBE_GROUPS -> new DescribeGroupsRequestData().setGroups(List.of("fuzz-group"));
            case DESCRIBE_CONFIGS ->
                new DescribeConfigsRequestData()
                        .setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                                .setResourceType((byte) 2)
                                .setResourceName("f")));
            case API_VERSIONS ->
                new ApiVersionsRequestData().setClientSoftwareName("fuzz").setClientSoftwareVersion("1");
            default -> api.messageType.newRequest();
        };
    }

    // ---------------------------------------------------------------------------------- mutations

    /** A change to a valid frame (the 4-byte size prefix included). */
    interface Mutation {
        byte[] apply(byte[] frame);
    }

    /** XORs bytes at the given positions (taken modulo the frame length). */
    record Flips(List<Integer> positions, List<Integer> masks) implements Mutation {
        @Override
        public byte[] apply(byte[] frame) {
            byte[] out = frame.clone();
            for (int i = 0; i < positions.size(); i++) {
                out[positions.get(i) % out.length] ^= (byte) (int) masks.get(i % masks.size());
            }
            return out;
        }
    }

    /** Cuts the frame; with {@code fixSize} the size prefix is corrected, so the body itself is short. */
    record Truncate(int keep, boolean fixSize) implements Mutation {
        @Override
        public byte[] apply(byte[] frame) {
            byte[] out = Arrays.copyOf(frame, keep % frame.length);
            if (fixSize && out.length >= 4) {
                ByteBuffer.wrap(out).putInt(0, out.length - 4);
            }
            return out;
        }
    }

    /** Appends bytes; with {@code fixSize} they become part of the frame, otherwise the start of another. */
    record Extend(byte[] tail, boolean fixSize) implements Mutation {
        @Override
        public byte[] apply(byte[] frame) {
            byte[] out = Arrays.copyOf(frame, frame.length + tail.length);
            System.arraycopy(tail, 0, out, frame.length, tail.length);
            if (fixSize) {
                ByteBuffer.wrap(out).putInt(0, out.length - 4);
            }
            return out;
        }

        @Override
        public String toString() {
            return "Extend[" + HexFormat.of().formatHex(tail) + ", fixSize=" + fixSize + "]";
        }
    }

    /** The size prefix lies: off by {@code value} when {@code relative}, else exactly {@code value}. */
    record SizeLie(int value, boolean relative) implements Mutation {
        @Override
        public byte[] apply(byte[] frame) {
            byte[] out = frame.clone();
            ByteBuffer.wrap(out).putInt(0, relative ? frame.length - 4 + value : value);
            return out;
        }
    }

    /** Keeps the size, api key and version; everything after them is random. */
    record RandomBody(byte[] rest) implements Mutation {
        @Override
        public byte[] apply(byte[] frame) {
            ByteBuffer out = ByteBuffer.allocate(8 + rest.length);
            out.putInt(4 + rest.length).put(frame, 4, 4).put(rest);
            return out.array();
        }

        @Override
        public String toString() {
            return "RandomBody[" + rest.length + " bytes]";
        }
    }

    @Provide
    Arbitrary<Mutation> mutations() {
        Arbitrary<Integer> anywhere = Arbitraries.integers().between(0, 1 << 20);
        // Headers (size, key, version, correlation id, client id, tagged fields) are where decoders branch.
        Arbitrary<Integer> position =
                Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.integers().between(0, 24)), Tuple.of(2, anywhere));
        Arbitrary<Mutation> flips = Combinators.combine(
                        position.list().ofMinSize(1).ofMaxSize(4),
                        Arbitraries.integers().between(1, 255).list().ofSize(4))
                .as(Flips::new);
        Arbitrary<Mutation> truncate =
                Combinators.combine(anywhere, Arbitraries.of(true, false)).as(Truncate::new);
        Arbitrary<Mutation> extend = Combinators.combine(
                        Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(64), Arbitraries.of(true, false))
                .as(Extend::new);
        Arbitrary<Mutation> sizeLie = Arbitraries.oneOf(
                Arbitraries.integers().between(-8, 8).filter(d -> d != 0).map(d -> new SizeLie(d, true)),
                Arbitraries.integers().map(v -> new SizeLie(v, false)));
        Arbitrary<Mutation> random =
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300).map(RandomBody::new);
        return Arbitraries.frequencyOf(
                Tuple.of(4, flips),
                Tuple.of(2, truncate),
                Tuple.of(1, extend),
                Tuple.of(2, sizeLie),
                Tuple.of(1, random));
    }
}
