package io.kaas.cli;

import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The resource and entry options of {@code kaas acl add} and {@code remove}, spelled as kafka-acls spells them. */
final class AclResourceOptions {
    @Option(names = "--topic", paramLabel = "NAME", description = "A topic (name, prefix, or * for all).")
    String topic;

    @Option(names = "--group", paramLabel = "NAME", description = "A consumer group.")
    String group;

    @Option(names = "--transactional-id", paramLabel = "ID", description = "A transactional id.")
    String transactionalId;

    @Option(names = "--cluster", description = "The cluster (Apache's kafka-cluster resource).")
    boolean cluster;

    @Option(
            names = "--pattern-type",
            paramLabel = "TYPE",
            defaultValue = "LITERAL",
            description = "LITERAL (default) or PREFIXED; remove also takes ANY and MATCH.")
    String patternType;

    @Option(names = "--principal", paramLabel = "PRINCIPAL", description = "Who: User:NAME, or User:* for everyone.")
    String principal;

    @Option(names = "--host", paramLabel = "HOST", description = "From where: an IP address, or * (add's default).")
    String host;

    @Option(
            names = "--operation",
            paramLabel = "OP",
            split = ",",
            description =
                    "READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, "
                            + "IDEMPOTENT_WRITE, CREATE_TOKENS, DESCRIBE_TOKENS, ALL; repeat or separate with commas.")
    List<String> operations;

    @Option(names = "--deny", description = "A DENY entry (DENY wins over ALLOW); default ALLOW.")
    boolean deny;

    /** The resource type and name given; exactly one resource option is required. */
    ResourcePatternFilter pattern(CommandSpec spec, boolean filter) {
        int given = (topic != null ? 1 : 0)
                + (group != null ? 1 : 0)
                + (transactionalId != null ? 1 : 0)
                + (cluster ? 1 : 0);
        if (given > 1 || (given == 0 && !filter)) {
            throw new ParameterException(
                    spec.commandLine(), "give exactly one of --topic, --group, --transactional-id, --cluster");
        }
        PatternType type = parse(spec, PatternType.class, patternType, "--pattern-type");
        if (!filter && type != PatternType.LITERAL && type != PatternType.PREFIXED) {
            throw new ParameterException(spec.commandLine(), "--pattern-type must be LITERAL or PREFIXED to add");
        }
        if (topic != null) {
            return new ResourcePatternFilter(ResourceType.TOPIC, topic, type);
        }
        if (group != null) {
            return new ResourcePatternFilter(ResourceType.GROUP, group, type);
        }
        if (transactionalId != null) {
            return new ResourcePatternFilter(ResourceType.TRANSACTIONAL_ID, transactionalId, type);
        }
        if (cluster) {
            return new ResourcePatternFilter(ResourceType.CLUSTER, "kafka-cluster", type);
        }
        return new ResourcePatternFilter(ResourceType.ANY, null, PatternType.ANY);
    }

    List<AclOperation> operations(CommandSpec spec) {
        if (operations == null || operations.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--operation is required");
        }
        return operations.stream()
                .map(o -> parse(spec, AclOperation.class, o, "--operation"))
                .toList();
    }

    /** True when no option narrows a filter (a pattern type without a resource does not): it matches every ACL. */
    boolean narrowsNothing() {
        return topic == null
                && group == null
                && transactionalId == null
                && !cluster
                && principal == null
                && host == null
                && (operations == null || operations.isEmpty())
                && !deny;
    }

    /** For remove: unset options match anything. */
    List<AclBindingFilter> filters(CommandSpec spec) {
        ResourcePatternFilter p = pattern(spec, true);
        AclPermissionType permission = deny ? AclPermissionType.DENY : AclPermissionType.ANY;
        List<AclOperation> ops =
                operations == null || operations.isEmpty() ? List.of(AclOperation.ANY) : operations(spec);
        return ops.stream()
                .map(op -> new AclBindingFilter(p, new AccessControlEntryFilter(principal, host, op, permission)))
                .toList();
    }

    static <E extends Enum<E>> E parse(CommandSpec spec, Class<E> type, String value, String option) {
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), option + ": unknown value '" + value + "'");
        }
    }
}
