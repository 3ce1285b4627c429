package io.kaas.broker.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/** A test sink connector (connect-file is not available here): one task appends each record's value as a line to a file. */
public final class LineFileSinkConnector extends SinkConnector {
    public static final String FILE = "file";

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
                .define(FILE, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "file the values are appended to");
    }

    @Override
    public String version() {
        return "test";
    }

    public static final class LineTask extends SinkTask {
        private Path file;

        @Override
        public void start(Map<String, String> props) {
            file = Path.of(props.get(FILE));
        }

        @Override
        public void put(Collection<SinkRecord> records) {
            StringBuilder text = new StringBuilder();
            for (SinkRecord r : records) {
                text.append(r.value()).append('\n');
            }
            try {
                Files.writeString(
                        file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void stop() {}

        @Override
        public String version() {
            return "test";
        }
    }
}
