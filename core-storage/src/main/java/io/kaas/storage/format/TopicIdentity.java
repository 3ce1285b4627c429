package io.kaas.storage.format;

import java.util.UUID;

/** {@code <topic>/.topic-id.json}: the incarnation stamp; a re-created topic gets a new id. */
public record TopicIdentity(UUID topicId) {
    public static final String FILE_NAME = ".topic-id.json";
}
