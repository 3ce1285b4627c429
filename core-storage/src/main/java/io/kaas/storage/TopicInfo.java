package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;
import java.util.UUID;

/** A topic as the engine knows it. */
public record TopicInfo(String name, UUID topicId, int partitions, TopicConfig config) {}
