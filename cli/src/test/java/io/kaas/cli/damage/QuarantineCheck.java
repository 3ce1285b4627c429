package io.kaas.cli.damage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * After a forced recovery: every byte that left a log is in {@code <partition>/.quarantine/<time>/}, each
 * removed range as {@code <file>.<start>-<end>} and listed in that directory's {@code note.json}
 * ({@code {"entries":[{"file":..,"start":S,"end":E,"saved":..,"why":..}]}}), byte for byte: the log before,
 * less the quarantined ranges, is the log after.
 */
final class QuarantineCheck {
    private static final ObjectMapper JSON = new ObjectMapper();

    private QuarantineCheck() {}

    record Entry(String file, long start, long end, String saved, String dir) {}

    /** The problems found, empty when every removed byte is accounted for. */
    static List<String> check(Map<String, byte[]> before, Map<String, byte[]> after) {
        List<String> problems = new ArrayList<>();
        List<Entry> entries = entries(after, problems);
        for (Map.Entry<String, byte[]> e : before.entrySet()) {
            String file = e.getKey();
            if (!IntactBatches.isPartitionLog(file)) {
                continue;
            }
            byte[] was = e.getValue();
            byte[] now = after.get(file);
            if (Arrays.equals(was, now)) {
                continue;
            }
            List<Entry> mine = entries.stream()
                    .filter(q -> q.file().equals(file))
                    .sorted(Comparator.comparingLong(Entry::start))
                    .toList();
            if (mine.isEmpty()) {
                problems.add(file + ": " + (was.length - (now == null ? 0 : now.length)) + " byte(s) left the log ("
                        + (now == null ? "file removed" : was.length + " -> " + now.length + " bytes")
                        + ") with no quarantine entry");
                continue;
            }
            ByteArrayOutputStream kept = new ByteArrayOutputStream();
            long at = 0;
            boolean ok = true;
            for (Entry q : mine) {
                if (q.start() < at || q.end() > was.length || q.start() > q.end()) {
                    problems.add(file + ": quarantine entry " + q.start() + "-" + q.end()
                            + " overlaps another or lies past the file (" + was.length + " bytes)");
                    ok = false;
                    break;
                }
                byte[] saved = after.get(q.dir() + "/" + q.saved());
                byte[] range = Arrays.copyOfRange(was, (int) q.start(), (int) q.end());
                if (!Arrays.equals(saved, range)) {
                    problems.add(file + ":" + q.start() + ": quarantined " + q.dir() + "/" + q.saved()
                            + " is not bytes " + q.start() + "-" + q.end() + " of the log ("
                            + (saved == null ? "missing" : saved.length + " bytes") + ")");
                    ok = false;
                }
                kept.write(was, (int) at, (int) (q.start() - at));
                at = q.end();
            }
            kept.write(was, (int) at, (int) (was.length - at));
            byte[] rest = kept.toByteArray();
            if (ok && !(now == null ? rest.length == 0 : Arrays.equals(rest, now))) {
                problems.add(file + ": the log before less its quarantined ranges (" + rest.length
                        + " bytes) is not the log after (" + (now == null ? "removed" : now.length + " bytes") + ")");
            }
        }
        return problems;
    }

    private static List<Entry> entries(Map<String, byte[]> after, List<String> problems) {
        List<Entry> out = new ArrayList<>();
        for (Map.Entry<String, byte[]> f : after.entrySet()) {
            String name = f.getKey();
            if (!name.startsWith(".quarantine/") || !name.endsWith("/note.json")) {
                continue;
            }
            String dir = name.substring(0, name.length() - "/note.json".length());
            try {
                JsonNode note = JSON.readTree(f.getValue());
                for (JsonNode e : note.path("entries")) {
                    out.add(new Entry(
                            e.path("file").asText(),
                            e.path("start").asLong(),
                            e.path("end").asLong(),
                            e.path("saved").asText(),
                            dir));
                }
            } catch (java.io.IOException e) {
                problems.add(name + ": unreadable note: " + e.getMessage());
            }
        }
        return out;
    }
}
