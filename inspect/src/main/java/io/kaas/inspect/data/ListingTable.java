package io.kaas.inspect.data;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code kaas ls}'s two renderings of {@link PartitionSummary}: a table for people (times in ISO-8601 UTC, "-" for
 * unknown), and one JSON object per partition for scripts, whose field names are a contract (documented in the
 * command's help and cli/README.md).
 */
public final class ListingTable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ListingTable() {}

    public static String json(PartitionSummary s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "partition");
        m.put("topic", s.dir().topic());
        m.put("partition", s.dir().partition());
        m.put("format", s.dir().apache() ? "apache" : "kaas");
        m.put("path", s.dir().path().toString());
        m.put("topicId", s.topicId());
        m.put("configs", s.configs());
        m.put("segments", s.segments());
        m.put("logStartOffset", s.logStartOffset());
        m.put("logEndOffset", s.logEndOffset());
        m.put("highWatermark", s.highWatermark());
        m.put("bytes", s.bytes());
        m.put("oldestTimestamp", s.oldestTimestamp());
        m.put("newestTimestamp", s.newestTimestamp());
        m.put("lastWriteMs", s.lastWriteMs());
        m.put("ownedByBroker", s.owned());
        List<Map<String, Object>> groups = new ArrayList<>();
        for (GroupLag g : s.groups()) {
            Map<String, Object> gm = new LinkedHashMap<>();
            gm.put("group", g.group());
            gm.put("committedOffset", g.offset());
            gm.put("lag", g.lag());
            groups.add(gm);
        }
        m.put("groups", groups);
        try {
            return JSON.writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void print(List<PartitionSummary> rows, PrintWriter out) {
        List<String[]> table = new ArrayList<>();
        table.add(new String[] {
            "TOPIC",
            "PARTITION",
            "TOPIC-ID",
            "SEGMENTS",
            "LOG-START",
            "LOG-END",
            "HIGH-WATERMARK",
            "BYTES",
            "OLDEST",
            "NEWEST",
            "LAST-WRITE",
            "BROKER"
        });
        for (PartitionSummary s : rows) {
            table.add(new String[] {
                s.dir().topic(),
                Integer.toString(s.dir().partition()),
                s.topicId() == null ? "-" : s.topicId(),
                Integer.toString(s.segments()),
                Long.toString(s.logStartOffset()),
                Long.toString(s.logEndOffset()),
                s.highWatermark() < 0 ? "-" : Long.toString(s.highWatermark()),
                Long.toString(s.bytes()),
                time(s.oldestTimestamp()),
                time(s.newestTimestamp()),
                s.lastWriteMs() <= 0 ? "-" : time(s.lastWriteMs()),
                s.owned() ? "owned" : "-"
            });
        }
        columns(table, out);
        Map<String, Map<String, String>> configs = new LinkedHashMap<>();
        for (PartitionSummary s : rows) {
            if (!s.configs().isEmpty()) {
                configs.putIfAbsent(s.dir().topic(), s.configs());
            }
        }
        if (!configs.isEmpty()) {
            out.println();
            List<String[]> c = new ArrayList<>();
            c.add(new String[] {"TOPIC", "CONFIGS"});
            configs.forEach((topic, m) -> c.add(new String[] {
                topic,
                m.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","))
            }));
            columns(c, out);
        }
        List<String[]> g = new ArrayList<>();
        g.add(new String[] {"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG"});
        for (PartitionSummary s : rows) {
            for (GroupLag l : s.groups()) {
                g.add(new String[] {
                    l.group(),
                    s.dir().topic(),
                    Integer.toString(s.dir().partition()),
                    Long.toString(l.offset()),
                    Long.toString(s.logEndOffset()),
                    Long.toString(l.lag())
                });
            }
        }
        if (g.size() > 1) {
            g.subList(1, g.size()).sort((a, b) -> a[0].compareTo(b[0]));
            out.println();
            columns(g, out);
        }
    }

    private static String time(long ms) {
        return ms < 0 ? "-" : Instant.ofEpochMilli(ms).toString();
    }

    /** Left-aligned columns, two spaces apart, no trailing blanks. */
    private static void columns(List<String[]> table, PrintWriter out) {
        int[] width = new int[table.get(0).length];
        for (String[] row : table) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        for (String[] row : table) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                sb.append(row[i]);
                if (i < row.length - 1) {
                    sb.append(" ".repeat(width[i] - row[i].length() + 2));
                }
            }
            out.println(sb);
        }
    }
}
