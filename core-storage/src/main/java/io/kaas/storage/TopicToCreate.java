package io.kaas.storage;

import io.kaas.storage.format.TopicConfig;

/** One topic of {@link StorageEngine#createTopics}: its name, partition count and config. */
public record TopicToCreate(String name, int partitions, TopicConfig config) {}
