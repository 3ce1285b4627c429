package io.kaas.storage.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TopicNameTest {
    @Test
    void apacheLegalNamesAreLegal() {
        assertThat(TopicName.problem("orders")).isEmpty();
        assertThat(TopicName.problem("a.b_c-D9")).isEmpty();
        assertThat(TopicName.problem("x".repeat(TopicName.MAX_LENGTH))).isEmpty();
        assertThat(TopicName.problem("__consumer_offsets_copy")).isEmpty();
    }

    @Test
    void eachBrokenRuleIsNamed() {
        assertThat(TopicName.problem("")).contains("topic name is empty");
        assertThat(TopicName.problem(null)).contains("topic name is empty");
        assertThat(TopicName.problem(".")).contains("topic name cannot be '.' or '..'");
        assertThat(TopicName.problem("..")).contains("topic name cannot be '.' or '..'");
        assertThat(TopicName.problem("x".repeat(TopicName.MAX_LENGTH + 1)))
                .contains("topic name is longer than 249 characters");
        assertThat(TopicName.problem("a/b")).get().asString().contains("may only contain");
        assertThat(TopicName.problem("é")).get().asString().contains("may only contain");
        assertThat(TopicName.problem(".hidden")).get().asString().contains("cannot start with '.'");
        assertThat(TopicName.problem(ClusterDir.NAME)).get().asString().contains("reserved for cluster state");
    }

    @Test
    void requireLegalThrowsIllegalArgumentWithTheRule() {
        assertThatThrownBy(() -> TopicName.requireLegal(".x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot start with '.'");
        TopicName.requireLegal("fine");
    }

    @Test
    void topicDirScanSkipsTheClusterDirAndTopicsBeingDeleted() {
        assertThat(TopicDir.isTopic("orders")).isTrue();
        assertThat(TopicDir.isTopic(ClusterDir.NAME)).isFalse();
        String deleting = TopicDir.deleting(java.nio.file.Path.of("data"), "orders", java.util.UUID.randomUUID())
                .getFileName()
                .toString();
        assertThat(TopicDir.isDeleting(deleting)).isTrue();
        assertThat(TopicDir.isTopic(deleting)).isFalse();
        assertThat(TopicDir.partitionIndex("12")).hasValue(12);
        assertThat(TopicDir.partitionIndex("x1")).isEmpty();
    }
}
