package io.kaas.inspect;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The small dump events that are not batches or records. */
public final class Events {
    private Events() {}

    /** "Dumping FILE", as Apache starts each file. */
    public record FileStart(Path file) implements DumpEvent {
        @Override
        public String text() {
            return "Dumping " + file;
        }

        @Override
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "file");
            m.put("file", file.toString());
            return m;
        }
    }

    /** "Log starting offset: N", the base offset the file name carries. */
    public record LogStart(Path file, long baseOffset) implements DumpEvent {
        @Override
        public String text() {
            return "Log starting offset: " + baseOffset;
        }

        @Override
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "log_start");
            m.put("file", file.toString());
            m.put("baseOffset", baseOffset);
            return m;
        }
    }

    /** Bytes that are not a valid batch: a torn tail (possibly zero-filled) or garbage. */
    public record InvalidBytes(Path file, long position, long bytes, boolean zeroFilled, String reason)
            implements DumpEvent {
        @Override
        public String text() {
            return bytes + " invalid bytes at position " + position + (zeroFilled ? " (zero-filled)" : "") + ": "
                    + reason;
        }

        @Override
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "invalid_bytes");
            m.put("file", file.toString());
            m.put("position", position);
            m.put("bytes", bytes);
            m.put("zeroFilled", zeroFilled);
            m.put("reason", reason);
            return m;
        }
    }

    /** A free-form line: "X is empty.", "X passed sanity check.", a warning. */
    public record Message(String kind, Path file, String message, boolean diagnostic) implements DumpEvent {
        @Override
        public String text() {
            return message;
        }

        @Override
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", kind);
            m.put("file", file.toString());
            m.put("message", message);
            return m;
        }
    }

    /** One {@code .index} entry. */
    public record IndexLine(Path file, int entry, long offset, int position) implements DumpEvent {
        @Override
        public String text() {
            return "offset: " + offset + " position: " + position;
        }

        @Override
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "index_entry");
            m.put("file", file.toString());
            m.put("entry", entry);
            m.put("offset", offset);
            m.put("position", position);
            return m;
        }
    }

    /** An index entry whose offset is not in the batch it points at. */
    public record IndexMismatch(
            Path file, int entry, long indexOffset, long batchBaseOffset, long batchLastOffset, int position)
            implements DumpEvent {
        @Override
        public String text() {
            return file + ":" + ((long) entry * 8) + ": index entry " + entry + " offset " + indexOffset
                    + " points at position " + position + " whose batch holds offsets "
                    + (batchBaseOffset < 0 ? "none (no valid batch there)" : batchBaseOffset + ".." + batchLastOffset);
        }

        @Override
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "index_mismatch");
            m.put("file", file.toString());
            m.put("entry", entry);
            m.put("indexOffset", indexOffset);
            m.put("position", position);
            m.put("batchBaseOffset", batchBaseOffset);
            m.put("batchLastOffset", batchLastOffset);
            return m;
        }

        @Override
        public boolean diagnostic() {
            return true;
        }
    }

    /** The last line of a JSON dump: how many files were named and the exit code. */
    public record Summary(int files, int exitCode) implements DumpEvent {
        @Override
        public String text() {
            return files + " file(s), exit code " + exitCode;
        }

        @Override
        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "summary");
            m.put("files", files);
            m.put("exitCode", exitCode);
            return m;
        }
    }
}
