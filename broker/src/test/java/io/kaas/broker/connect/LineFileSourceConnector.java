package io.kaas.broker.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * A test source connector (connect-file is not available here): one task sends the lines of a file to a
 * topic, recording the line number as its source offset so a restarted task resumes after the last one
 * Connect committed to its offsets topic.
 */
public final class LineFileSourceConnector extends SourceConnector {
    public static final String FILE = "file";
    public static final String TOPIC = "topic";
    private static final String PARTITION_KEY = "file";
    private static final String OFFSET_KEY = "line";

    private Map<String, String> props;

    @Override
    public void start(Map<String, String> props) {
        this.props = props;
    }

    @Override
    public Class<? extends Task> taskClass() {
        return LineTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return List.of(props);
    }

    @Override
    public void stop() {}

    @Override
    public ConfigDef config() {
        return new ConfigDef()
                .define(FILE, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "file whose lines are sent")
                .define(TOPIC, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "topic the lines go to");
    }

    @Override
    public String version() {
        return "test";
    }

    public static final class LineTask extends SourceTask {
        private final Object idle = new Object();
        private List<String> lines;
        private String topic;
        private Map<String, String> partition;
        private int next;
        private volatile boolean stopping;

        @Override
        public void start(Map<String, String> props) {
            try {
                lines = Files.readAllLines(Path.of(props.get(FILE)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            topic = props.get(TOPIC);
            partition = Map.of(PARTITION_KEY, props.get(FILE));
            Map<String, Object> committed = context.offsetStorageReader().offset(partition);
            next = committed == null ? 0 : ((Number) committed.get(OFFSET_KEY)).intValue() + 1;
        }

        @Override
        public List<SourceRecord> poll() throws InterruptedException {
            if (next >= lines.size()) {
                // Nothing left: wait a little (until stop) rather than have the worker spin on poll().
                synchronized (idle) {
                    if (!stopping) {
                        idle.wait(200);
                    }
                }
                return null;
            }
            List<SourceRecord> out = new ArrayList<>();
            for (; next < lines.size() && out.size() < 100; next++) {
                out.add(new SourceRecord(
                        partition, Map.of(OFFSET_KEY, next), topic, 0, Schema.STRING_SCHEMA, lines.get(next)));
            }
            return out;
        }

        @Override
        public void stop() {
            synchronized (idle) {
                stopping = true;
                idle.notifyAll();
            }
        }

        @Override
        public String version() {
            return "test";
        }
    }
}
