package io.kaas.broker.api;

/** Told of the bytes and messages that Produce wrote and Fetch sent, per topic (the broker's metrics). */
public interface TrafficObserver {
    TrafficObserver NONE = new TrafficObserver() {
        @Override
        public void produced(String topic, long messages, long bytes) {}

        @Override
        public void fetched(String topic, long bytes) {}
    };

    /** An append of {@code messages} records in {@code bytes} of batches was acknowledged (duplicates excluded). */
    void produced(String topic, long messages, long bytes);

    /** A Fetch response carried {@code bytes} of batches of {@code topic}. */
    void fetched(String topic, long bytes);
}
