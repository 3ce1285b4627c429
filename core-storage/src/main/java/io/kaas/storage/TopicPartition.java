package io.kaas.storage;

/** A topic and partition number; the directory is {@code <data>/<topic>/<partition>}. */
public record TopicPartition(String topic, int partition) {
    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
