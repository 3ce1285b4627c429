package io.kaas.broker.api;

import io.kaas.broker.BrokerConfig;
import io.kaas.broker.Endpoint;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** The broker's settings under Apache's names, for DescribeConfigs on the BROKER resource (read-only). */
public final class BrokerConfigView {
    private BrokerConfigView() {}

    public static Map<String, String> of(BrokerConfig c) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("node.id", Integer.toString(c.brokerId()));
        m.put("broker.id", Integer.toString(c.brokerId()));
        m.put("listeners", c.listeners().stream().map(Endpoint::toString).collect(Collectors.joining(",")));
        m.put("advertised.listeners", c.advertisedListeners().stream().map(Endpoint::toString).collect(Collectors.joining(",")));
        m.put("log.dirs", c.inMemory() ? "(in memory)" : c.dataDir().toAbsolutePath().toString());
        m.put("num.partitions", Integer.toString(c.defaultPartitions()));
        m.put("auto.create.topics.enable", Boolean.toString(c.autoCreateTopics()));
        m.put("log.segment.bytes", Long.toString(c.segmentBytes()));
        m.put("log.flush.interval.messages", Long.toString(c.flushIntervalMessages()));
        m.put("log.retention.check.interval.ms", Long.toString(c.retentionCheckInterval().toMillis()));
        m.put("socket.request.max.bytes", Integer.toString(c.socketRequestMaxBytes()));
        m.put("default.replication.factor", "1");
        m.put("min.insync.replicas", "1");
        return m;
    }
}
