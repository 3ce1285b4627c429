package io.kaas.broker.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests. No well-kept Java parser
 * of the format is published (client_java writes it but does not read it), so this one follows the
 * format's grammar and rejects what Prometheus would: a sample of a family not declared by the
 * {@code # TYPE} line before it, a family declared twice or split, a bad metric or label name, a bad
 * escape, a value that is not a float, a duplicate series, a missing final newline, and histograms whose
 * buckets are not cumulative or whose {@code +Inf} bucket differs from {@code _count}.
 */
final class PrometheusText {
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");
    private static final List<String> SUFFIXES = List.of("", "_total", "_bucket", "_sum", "_count", "_created", "_info");

    record Sample(String name, Map<String, String> labels, double value) {}

    record Family(String name, String type, String help, List<Sample> samples) {}

    private final Map<String, Family> families = new LinkedHashMap<>();

    private PrometheusText() {}

    static PrometheusText parse(String text) {
        if (!text.endsWith("\n")) {
            throw new IllegalArgumentException("exposition does not end with a newline");
        }
        PrometheusText out = new PrometheusText();
        Set<String> series = new HashSet<>();
        Family current = null;
        Map<String, String> help = new TreeMap<>();
        int lineNo = 0;
        for (String line : text.substring(0, text.length() - 1).split("\n", -1)) {
            lineNo++;
            String where = "line " + lineNo + " '" + line + "': ";
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
                String[] parts = line.substring(7).split(" ", 2);
                requireName(parts[0], where);
                if (line.startsWith("# HELP ")) {
                    if (help.put(parts[0], parts.length > 1 ? unescape(parts[1], false, where) : "") != null) {
                        throw new IllegalArgumentException(where + "second HELP for " + parts[0]);
                    }
                    continue;
                }
                if (parts.length != 2 || !TYPES.contains(parts[1])) {
                    throw new IllegalArgumentException(where + "unknown type");
                }
                if (out.families.containsKey(parts[0])) {
                    throw new IllegalArgumentException(where + "family declared twice (or its samples are split)");
                }
                current = new Family(parts[0], parts[1], null, new ArrayList<>());
                out.families.put(parts[0], current);
                continue;
            }
            if (line.startsWith("#")) {
                continue; // a comment
            }
            Sample s = sample(line, where);
            if (current == null || !belongs(s.name(), current.name())) {
                throw new IllegalArgumentException(where + "sample outside its family's TYPE block");
            }
            if (!series.add(s.name() + s.labels())) {
                throw new IllegalArgumentException(where + "duplicate series");
            }
            current.samples().add(s);
        }
        Map<String, Family> withHelp = new LinkedHashMap<>();
        out.families.forEach((n, f) -> withHelp.put(n, new Family(n, f.type(), help.get(n), f.samples())));
        out.families.clear();
        out.families.putAll(withHelp);
        out.families.values().stream().filter(f -> f.type().equals("histogram")).forEach(PrometheusText::checkHistogram);
        return out;
    }

    private static boolean belongs(String sample, String family) {
        return SUFFIXES.stream().anyMatch(suffix -> sample.equals(family + suffix));
    }

    private static Sample sample(String line, String where) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        requireName(name, where);
        Map<String, String> labels = new TreeMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String label = line.substring(i, eq);
                if (!LABEL_NAME.matcher(label).matches()) {
                    throw new IllegalArgumentException(where + "bad label name '" + label + "'");
                }
                if (line.charAt(eq + 1) != '"') {
                    throw new IllegalArgumentException(where + "label value not quoted");
                }
                StringBuilder raw = new StringBuilder();
                int j = eq + 2;
                while (line.charAt(j) != '"') {
                    if (line.charAt(j) == '\\') {
                        raw.append(line.charAt(j++));
                    }
                    raw.append(line.charAt(j++));
                }
                if (labels.put(label, unescape(raw.toString(), true, where)) != null) {
                    throw new IllegalArgumentException(where + "label " + label + " twice");
                }
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                } else if (line.charAt(i) != '}') {
                    throw new IllegalArgumentException(where + "expected ',' or '}'");
                }
            }
            i++;
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            throw new IllegalArgumentException(where + "no value");
        }
        String[] rest = line.substring(i + 1).split(" ");
        if (rest.length > 2) {
            throw new IllegalArgumentException(where + "junk after the timestamp");
        }
        if (rest.length == 2) {
            Long.parseLong(rest[1]);
        }
        return new Sample(name, Collections.unmodifiableMap(labels), value(rest[0], where));
    }

    private static double value(String v, String where) {
        switch (v) {
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            case "NaN":
                return Double.NaN;
            default:
                if (!v.matches("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?")) {
                    throw new IllegalArgumentException(where + "value '" + v + "' is not a float");
                }
                return Double.parseDouble(v);
        }
    }

    private static void requireName(String name, String where) {
        if (!METRIC_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(where + "bad metric name '" + name + "'");
        }
    }

    /** HELP allows \\ and \n; label values also \". Anything else after a backslash is an error. */
    private static String unescape(String s, boolean quotes, String where) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char n = ++i < s.length() ? s.charAt(i) : 0;
            if (n == '\\') {
                out.append('\\');
            } else if (n == 'n') {
                out.append('\n');
            } else if (n == '"' && quotes) {
                out.append('"');
            } else {
                throw new IllegalArgumentException(where + "bad escape");
            }
        }
        return out.toString();
    }

    /** Per series (labels without le): buckets ascending in le, counts cumulative, +Inf == _count. */
    private static void checkHistogram(Family f) {
        Map<Map<String, String>, List<Sample>> buckets = new LinkedHashMap<>();
        Map<Map<String, String>, Double> counts = new LinkedHashMap<>();
        for (Sample s : f.samples()) {
            if (s.name().equals(f.name() + "_bucket")) {
                Map<String, String> key = new TreeMap<>(s.labels());
                key.remove("le");
                buckets.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
            } else if (s.name().equals(f.name() + "_count")) {
                counts.put(new TreeMap<>(s.labels()), s.value());
            }
        }
        buckets.forEach((key, list) -> {
            double lastLe = Double.NEGATIVE_INFINITY;
            double lastCount = 0;
            for (Sample b : list) {
                double le = value(b.labels().get("le"), f.name() + ": ");
                if (le <= lastLe || b.value() < lastCount) {
                    throw new IllegalArgumentException(f.name() + key + ": buckets not ascending or not cumulative");
                }
                lastLe = le;
                lastCount = b.value();
            }
            if (lastLe != Double.POSITIVE_INFINITY || !Double.valueOf(lastCount).equals(counts.get(key))) {
                throw new IllegalArgumentException(f.name() + key + ": +Inf bucket missing or not equal to _count");
            }
        });
    }

    Optional<Family> family(String name) {
        return Optional.ofNullable(families.get(name));
    }

    Set<String> familyNames() {
        return families.keySet();
    }

    /** The value of the one sample named {@code name} with exactly these labels (k1, v1, k2, v2, ...). */
    Optional<Double> value(String name, String... labels) {
        Map<String, String> want = new TreeMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            want.put(labels[i], labels[i + 1]);
        }
        return families.values().stream().flatMap(f -> f.samples().stream())
                .filter(s -> s.name().equals(name) && s.labels().equals(want)).map(Sample::value).findFirst();
    }

    /** Sum of every sample named {@code name} whose labels include these. */
    double sum(String name, String... labels) {
        return families.values().stream().flatMap(f -> f.samples().stream())
                .filter(s -> s.name().equals(name))
                .filter(s -> {
                    for (int i = 0; i < labels.length; i += 2) {
                        if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                            return false;
                        }
                    }
                    return true;
                }).mapToDouble(Sample::value).sum();
    }
}
