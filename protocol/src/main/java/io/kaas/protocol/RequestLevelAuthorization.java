package io.kaas.protocol;

import static org.apache.kafka.common.acl.AclOperation.ALTER;
import static org.apache.kafka.common.acl.AclOperation.CLUSTER_ACTION;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.IDEMPOTENT_WRITE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;
import static org.apache.kafka.common.resource.ResourceType.GROUP;
import static org.apache.kafka.common.resource.ResourceType.TOPIC;
import static org.apache.kafka.common.resource.ResourceType.TRANSACTIONAL_ID;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The checks Apache's KafkaApis makes before it looks into a request, where a denial fails the whole
 * request with one error code (the API's own error response, built by the caller from
 * {@code getErrorResponse}). Checks on each topic, group or id inside a request, answered per entry,
 * live in the handlers. Order within an API is Apache's (transactional id before group, for instance).
 */
public final class RequestLevelAuthorization {
    private RequestLevelAuthorization() {}

    /** {@link Errors#NONE}, or why the whole request is refused. */
    public static Errors check(RequestContext ctx, ApiKeys api, ApiMessage body) {
        if (!ctx.access().enabled()) {
            return Errors.NONE;
        }
        return switch (api) {
            case PRODUCE -> txnWrite(ctx, ((ProduceRequestData) body).transactionalId());
            case INIT_PRODUCER_ID -> initProducerId(ctx, (InitProducerIdRequestData) body);
            case END_TXN -> txnWrite(ctx, ((EndTxnRequestData) body).transactionalId());
            case ADD_OFFSETS_TO_TXN ->
                first(
                        txnWrite(ctx, ((AddOffsetsToTxnRequestData) body).transactionalId()),
                        group(ctx, READ, ((AddOffsetsToTxnRequestData) body).groupId()));
            case TXN_OFFSET_COMMIT ->
                first(
                        txnWrite(ctx, ((TxnOffsetCommitRequestData) body).transactionalId()),
                        group(ctx, READ, ((TxnOffsetCommitRequestData) body).groupId()));
            case ADD_PARTITIONS_TO_TXN -> addPartitionsToTxn(ctx, (AddPartitionsToTxnRequestData) body);
            // Apache: ALTER on the cluster, else CLUSTER_ACTION (the inter-broker permission).
            case WRITE_TXN_MARKERS -> cluster(ctx, ALTER) == Errors.NONE ? Errors.NONE : cluster(ctx, CLUSTER_ACTION);
            case JOIN_GROUP -> group(ctx, READ, ((JoinGroupRequestData) body).groupId());
            case SYNC_GROUP -> group(ctx, READ, ((SyncGroupRequestData) body).groupId());
            case HEARTBEAT -> group(ctx, READ, ((HeartbeatRequestData) body).groupId());
            case LEAVE_GROUP -> group(ctx, READ, ((LeaveGroupRequestData) body).groupId());
            case OFFSET_COMMIT -> group(ctx, READ, ((OffsetCommitRequestData) body).groupId());
            case OFFSET_DELETE -> group(ctx, DELETE, ((OffsetDeleteRequestData) body).groupId());
            case CONSUMER_GROUP_HEARTBEAT -> group(ctx, READ, ((ConsumerGroupHeartbeatRequestData) body).groupId());
            case SHARE_GROUP_HEARTBEAT -> group(ctx, READ, ((ShareGroupHeartbeatRequestData) body).groupId());
            case STREAMS_GROUP_HEARTBEAT -> group(ctx, READ, ((StreamsGroupHeartbeatRequestData) body).groupId());
            case STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE ->
                group(ctx, READ, ((StreamsGroupTopologyDescriptionUpdateRequestData) body).groupId());
            case SHARE_FETCH -> groupIfNamed(ctx, ((ShareFetchRequestData) body).groupId());
            case SHARE_ACKNOWLEDGE -> groupIfNamed(ctx, ((ShareAcknowledgeRequestData) body).groupId());
            case DESCRIBE_LOG_DIRS, DESCRIBE_ACLS, DESCRIBE_USER_SCRAM_CREDENTIALS -> cluster(ctx, DESCRIBE);
            case CREATE_ACLS, DELETE_ACLS -> cluster(ctx, ALTER);
            // Apache's ControllerApis: ALTER on the cluster to move partitions, DESCRIBE to list the moves.
            case ALTER_PARTITION_REASSIGNMENTS -> cluster(ctx, ALTER);
            case LIST_PARTITION_REASSIGNMENTS -> cluster(ctx, DESCRIBE);
            case DESCRIBE_CLIENT_QUOTAS -> cluster(ctx, AclOperation.DESCRIBE_CONFIGS);
            case ALTER_CLIENT_QUOTAS -> cluster(ctx, AclOperation.ALTER_CONFIGS);
            default -> Errors.NONE;
        };
    }

    private static Errors initProducerId(RequestContext ctx, InitProducerIdRequestData r) {
        if (r.transactionalId() != null) {
            return txnWrite(ctx, r.transactionalId());
        }
        // KIP-679: an idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic.
        return ctx.allowedOnCluster(IDEMPOTENT_WRITE) || ctx.allowedOnSome(WRITE, TOPIC)
                ? Errors.NONE
                : Errors.CLUSTER_AUTHORIZATION_FAILED;
    }

    /** v4+ is the broker-to-coordinator form (CLUSTER_ACTION); older versions come from producers. */
    private static Errors addPartitionsToTxn(RequestContext ctx, AddPartitionsToTxnRequestData r) {
        if (ctx.apiVersion() >= 4) {
            return cluster(ctx, CLUSTER_ACTION);
        }
        return txnWrite(ctx, r.v3AndBelowTransactionalId());
    }

    private static Errors txnWrite(RequestContext ctx, String transactionalId) {
        if (transactionalId == null) {
            return Errors.NONE;
        }
        return ctx.allowed(WRITE, TRANSACTIONAL_ID, transactionalId)
                ? Errors.NONE
                : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    }

    private static Errors group(RequestContext ctx, AclOperation op, String groupId) {
        return ctx.allowed(op, GROUP, groupId) ? Errors.NONE : Errors.GROUP_AUTHORIZATION_FAILED;
    }

    /** READ on the group; a request naming none is refused by its handler (INVALID_REQUEST). */
    private static Errors groupIfNamed(RequestContext ctx, String groupId) {
        return groupId == null ? Errors.NONE : group(ctx, READ, groupId);
    }

    private static Errors cluster(RequestContext ctx, AclOperation op) {
        return ctx.allowedOnCluster(op) ? Errors.NONE : Errors.CLUSTER_AUTHORIZATION_FAILED;
    }

    private static Errors first(Errors a, Errors b) {
        return a != Errors.NONE ? a : b;
    }

    /** For handlers: the error a denied resource of {@code type} gets. */
    public static Errors deniedError(ResourceType type) {
        return switch (type) {
            case TOPIC -> Errors.TOPIC_AUTHORIZATION_FAILED;
            case GROUP -> Errors.GROUP_AUTHORIZATION_FAILED;
            case TRANSACTIONAL_ID -> Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
            default -> Errors.CLUSTER_AUTHORIZATION_FAILED;
        };
    }
}
