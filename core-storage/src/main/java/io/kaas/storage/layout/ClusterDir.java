package io.kaas.storage.layout;

import java.nio.file.Path;

/**
 * {@code <data>/__cluster/}: the broker's cluster-wide state beside the topics (committed offsets,
 * producer-id blocks, SCRAM credentials, delegation tokens, ACLs, client quotas, transaction state, group configs,
 * finalized features, client-metrics subscriptions). It is never a topic ({@link TopicName}) and never holds partitions
 * ({@link PartitionFinder} skips it).
 */
public final class ClusterDir {
    public static final String NAME = "__cluster";
    /** {@code <cluster>/__consumer_offsets/<group>.json}, one file per consumer group. */
    public static final String CONSUMER_OFFSETS = "__consumer_offsets";
    /** {@code <cluster>/producer_ids/next-block.json}, the end of the last producer-id block handed out. */
    public static final String PRODUCER_IDS = "producer_ids";
    /** {@code <cluster>/credentials.json}, SCRAM credentials (salted, iterated; never a password). */
    public static final String CREDENTIALS = "credentials.json";
    /** {@code <cluster>/acls.json}, the access-control list (Apache's ACL bindings, each with its id), rewritten atomically. */
    public static final String ACLS = "acls.json";
    /** {@code <cluster>/delegation-tokens.json}, delegation tokens: their owners and times and a hash of each HMAC, never the HMAC. */
    public static final String DELEGATION_TOKENS = "delegation-tokens.json";
    /** {@code <cluster>/client-quotas.json}, client quotas by user and/or client id (Apache's entities and keys). */
    public static final String CLIENT_QUOTAS = "client-quotas.json";
    /** {@code <cluster>/txn_state/slot-NN.json}, the transaction coordinator's state, one file per slot. */
    public static final String TXN_STATE = "txn_state";
    /** {@code <cluster>/group-configs.json}, the configs set on groups (ConfigResource GROUP), all groups in one file. */
    public static final String GROUP_CONFIGS = "group-configs.json";
    /** {@code <cluster>/share_groups/<group>.json}, one share group's share-partition state (KIP-932). */
    public static final String SHARE_GROUPS = "share_groups";
    /** {@code <cluster>/features.json}, the finalized feature levels (KIP-584) and their epoch. */
    public static final String FEATURES = "features.json";
    /** {@code <cluster>/client-metrics.json}, the client-metrics subscriptions (ConfigResource CLIENT_METRICS, KIP-714). */
    public static final String CLIENT_METRICS = "client-metrics.json";

    private ClusterDir() {}

    public static Path of(Path dataDir) {
        return dataDir.resolve(NAME);
    }

    public static Path consumerOffsets(Path clusterDir) {
        return clusterDir.resolve(CONSUMER_OFFSETS);
    }

    public static Path producerIds(Path clusterDir) {
        return clusterDir.resolve(PRODUCER_IDS);
    }

    public static Path credentials(Path clusterDir) {
        return clusterDir.resolve(CREDENTIALS);
    }

    public static Path acls(Path clusterDir) {
        return clusterDir.resolve(ACLS);
    }

    public static Path delegationTokens(Path clusterDir) {
        return clusterDir.resolve(DELEGATION_TOKENS);
    }

    public static Path clientQuotas(Path clusterDir) {
        return clusterDir.resolve(CLIENT_QUOTAS);
    }

    public static Path shareGroups(Path clusterDir) {
        return clusterDir.resolve(SHARE_GROUPS);
    }

    public static Path groupConfigs(Path clusterDir) {
        return clusterDir.resolve(GROUP_CONFIGS);
    }

    public static Path features(Path clusterDir) {
        return clusterDir.resolve(FEATURES);
    }

    public static Path clientMetrics(Path clusterDir) {
        return clusterDir.resolve(CLIENT_METRICS);
    }

    public static Path txnState(Path clusterDir) {
        return clusterDir.resolve(TXN_STATE);
    }

    /** {@code slot-NN.json}: the file of one transaction-state slot (two digits, as Apache's 50 partitions). */
    public static Path txnStateSlot(Path clusterDir, int slot) {
        return txnState(clusterDir).resolve(String.format("slot-%02d.json", slot));
    }
}
