package io.kaas.broker.api;

import io.kaas.broker.group.GroupCoordinator;
import io.kaas.broker.group.OffsetStore;
import io.kaas.protocol.ApiHandler;
import io.kaas.protocol.RequestContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/** OffsetDelete: removes committed offsets, except for topics the group's live members subscribe to. */
public final class OffsetDeleteHandler implements ApiHandler<OffsetDeleteRequestData> {
    private final GroupCoordinator groups;

    public OffsetDeleteHandler(GroupCoordinator groups) {
        this.groups = groups;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext ctx, OffsetDeleteRequestData request) {
        List<OffsetStore.PartitionKey> keys = new ArrayList<>();
        Map<OffsetStore.PartitionKey, Errors> results = new HashMap<>();
        // Apache: offsets of topics the principal may not READ stay, answered TOPIC_AUTHORIZATION_FAILED.
        java.util.Set<String> allowed = ctx.allowedNames(
                AclOperation.READ,
                ResourceType.TOPIC,
                request.topics().stream()
                        .map(OffsetDeleteRequestData.OffsetDeleteRequestTopic::name)
                        .toList());
        request.topics()
                .forEach(t -> t.partitions().forEach(p -> {
                    OffsetStore.PartitionKey key = new OffsetStore.PartitionKey(t.name(), p.partitionIndex());
                    if (allowed.contains(t.name())) {
                        keys.add(key);
                    } else {
                        results.put(key, Errors.TOPIC_AUTHORIZATION_FAILED);
                    }
                }));
        Errors groupError = groups.deleteOffsets(request.groupId(), keys, results);
        OffsetDeleteResponseData response = new OffsetDeleteResponseData().setErrorCode(groupError.code());
        if (groupError != Errors.NONE) {
            return CompletableFuture.completedFuture(response);
        }
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : request.topics()) {
            OffsetDeleteResponseData.OffsetDeleteResponseTopic tr =
                    new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name());
            for (OffsetDeleteRequestData.OffsetDeleteRequestPartition p : t.partitions()) {
                Errors e =
                        results.getOrDefault(new OffsetStore.PartitionKey(t.name(), p.partitionIndex()), Errors.NONE);
                tr.partitions()
                        .add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                                .setPartitionIndex(p.partitionIndex())
                                .setErrorCode(e.code()));
            }
            response.topics().add(tr);
        }
        return CompletableFuture.completedFuture(response);
    }
}
