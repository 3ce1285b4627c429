package io.kaas.broker.feature;

import io.kaas.storage.format.SharedStateFile;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.metadata.VersionRange;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.GroupVersion;
import org.apache.kafka.server.common.KRaftVersion;
import org.apache.kafka.server.common.MetadataVersion;
import org.apache.kafka.server.common.ShareVersion;
import org.apache.kafka.server.common.StreamsVersion;
import org.apache.kafka.server.common.TransactionVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The finalized feature levels (KIP-584), durable in {@code <data>/__cluster/features.json} with their epoch,
 * which ApiVersions v3+ reports and UpdateFeatures changes ({@link FeatureUpdateRules}). A new data directory
 * starts where {@code kafka-storage format} starts a single Apache 4.4 node: metadata.version at the latest
 * production level and every other feature at its default for it, except transaction.version, which
 * {@code kaas serve --transaction-version} sets there (as {@code format --feature transaction.version=N}).
 *
 * <p>What kaas supports ({@link #supported}) is Apache's range where kaas honours every level of it, and one
 * level where it cannot turn the feature off: metadata.version (kaas keeps no metadata log, so no level changes
 * what it does) and eligible.leader.replicas.version (one replica per partition: ELR is empty) take Apache's whole
 * range, transaction.version too (clients choose the transaction protocol from it; the coordinator serves them
 * all); group.version, streams.version and share.version are served at their latest level only (their APIs are
 * always on), and kraft.version at 1, a standalone controller's level. Each change is an epoch: clients take the
 * levels of the answer with the highest epoch, so an unchanged epoch would hide a change.
 */
public final class FinalizedFeatures {
    /** The file's shape: the finalized levels by Apache's names (0 never stored), and the epoch of the last change. */
    public record FeaturesFile(int version, long epoch, Map<String, Short> levels) {}

    /** The finalized levels and their epoch. */
    public record Levels(long epoch, Map<String, Short> levels) {}

    private static final Logger LOG = LoggerFactory.getLogger(FinalizedFeatures.class);

    private final SharedStateFile<FeaturesFile> file;
    private final FeatureUpdateRules rules;
    /** What a new data directory starts with (and what stands if the file is removed under a running broker). */
    private final FeaturesFile initial;

    /**
     * Reads {@code file}, or starts it (written at once) for a new data directory.
     *
     * @param transactionVersion the transaction.version of a new data directory
     */
    public FinalizedFeatures(Path file, int nodeId, short transactionVersion) {
        this.file = SharedStateFile.of(file, FeaturesFile.class, null);
        this.rules = new FeatureUpdateRules(nodeId, supported());
        this.initial = new FeaturesFile(1, 0, new TreeMap<>(initial(transactionVersion)));
        FeaturesFile stored = this.file.update(f -> f != null ? f : initial);
        short tv = stored.levels().getOrDefault(TransactionVersion.FEATURE_NAME, (short) 0);
        if (tv != transactionVersion) {
            LOG.info(
                    "transaction.version is {} as finalized in {} (kaas.transaction.version {} is the level"
                            + " of a new data directory; kafka-features.sh changes it)",
                    tv,
                    file,
                    transactionVersion);
        }
    }

    /** What kaas supports of each feature (see the class comment). */
    public static Map<String, VersionRange> supported() {
        Map<String, VersionRange> out = new LinkedHashMap<>();
        out.put(
                MetadataVersion.FEATURE_NAME,
                VersionRange.of(
                        MetadataVersion.MINIMUM_VERSION.featureLevel(),
                        MetadataVersion.LATEST_PRODUCTION.featureLevel()));
        out.put(KRaftVersion.FEATURE_NAME, VersionRange.of(1, 1));
        out.put(TransactionVersion.FEATURE_NAME, VersionRange.of(0, Feature.TRANSACTION_VERSION.latestProduction()));
        out.put(GroupVersion.FEATURE_NAME, latestOnly(Feature.GROUP_VERSION));
        out.put(
                Feature.ELIGIBLE_LEADER_REPLICAS_VERSION.featureName(),
                VersionRange.of(0, Feature.ELIGIBLE_LEADER_REPLICAS_VERSION.latestProduction()));
        out.put(ShareVersion.FEATURE_NAME, latestOnly(Feature.SHARE_VERSION));
        out.put(StreamsVersion.FEATURE_NAME, latestOnly(Feature.STREAMS_VERSION));
        return out;
    }

    private static VersionRange latestOnly(Feature f) {
        return VersionRange.of(f.latestProduction(), f.latestProduction());
    }

    private static Map<String, Short> initial(short transactionVersion) {
        MetadataVersion mv = MetadataVersion.LATEST_PRODUCTION;
        Map<String, Short> out = new TreeMap<>();
        out.put(MetadataVersion.FEATURE_NAME, mv.featureLevel());
        for (Feature f : Feature.PRODUCTION_FEATURES) {
            VersionRange range = supported().get(f.featureName());
            short level = (short) Math.max(range.min(), Math.min(range.max(), f.defaultLevel(mv)));
            out.put(f.featureName(), level);
        }
        out.put(TransactionVersion.FEATURE_NAME, transactionVersion);
        out.values().removeIf(level -> level == 0);
        return Map.copyOf(out);
    }

    /**
     * The finalized levels, read again when the file changed since (another broker sharing the directory changed
     * them): one stat per call, which ApiVersions makes once per connection.
     */
    public Levels levels() {
        return levelsOf(orInitial(file.current()));
    }

    /**
     * Applies {@code updates} (feature to new level; 0 removes it) by Apache's rules and, unless
     * {@code validateOnly}, writes them durably under a new epoch before it answers.
     */
    public ApiError update(
            Map<String, Short> updates, Map<String, FeatureUpdate.UpgradeType> types, boolean validateOnly) {
        if (updates.isEmpty()) {
            return ApiError.NONE; // nothing to change: no new epoch
        }
        if (validateOnly) {
            return rules.apply(levels().levels(), updates, types).error();
        }
        ApiError[] outcome = {ApiError.NONE};
        file.update(f -> {
            FeaturesFile base = orInitial(f);
            FeatureUpdateRules.Result result = rules.apply(levelsOf(base).levels(), updates, types);
            if (result.error().isFailure()) {
                outcome[0] = result.error();
                return f;
            }
            return new FeaturesFile(1, base.epoch() + 1, new TreeMap<>(result.levels()));
        });
        return outcome[0];
    }

    private FeaturesFile orInitial(FeaturesFile f) {
        return f == null ? initial : f;
    }

    private static Levels levelsOf(FeaturesFile f) {
        return new Levels(f.epoch(), f.levels() == null ? Map.of() : Map.copyOf(f.levels()));
    }
}
