package io.kaas.storage.layout;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one rule for topic names, applied by the engine when it creates a topic or scans the data dir
 * and by the broker before every create (CreateTopics, auto-create from Produce and Metadata), so every
 * path refuses the same names. Apache's rule (1 to 249 of {@code [a-zA-Z0-9._-]}, not {@code .} or
 * {@code ..}), narrowed by the data-dir layout: a topic is a directory under the data dir, where
 * {@value ClusterDir#NAME} holds cluster state and names starting with {@code .} are topics being
 * deleted ({@link TopicDir#deleting}).
 */
public final class TopicName {
    public static final int MAX_LENGTH = 249;
    private static final Pattern LEGAL_CHARS = Pattern.compile("[a-zA-Z0-9._-]+");

    private TopicName() {}

    /** What rule {@code name} breaks, for an error message; empty when it is a legal topic name. */
    public static Optional<String> problem(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of("topic name is empty");
        }
        if (name.equals(".") || name.equals("..")) {
            return Optional.of("topic name cannot be '.' or '..'");
        }
        if (name.length() > MAX_LENGTH) {
            return Optional.of("topic name is longer than " + MAX_LENGTH + " characters");
        }
        if (!LEGAL_CHARS.matcher(name).matches()) {
            return Optional.of("topic name '" + name + "' may only contain ASCII letters, digits, '.', '_' and '-'");
        }
        if (name.startsWith(".")) {
            return Optional.of(
                    "topic name '" + name + "' cannot start with '.' (the data dir keeps topics being deleted there)");
        }
        if (name.equals(ClusterDir.NAME)) {
            return Optional.of("topic name '" + name + "' is reserved for cluster state");
        }
        return Optional.empty();
    }

    public static boolean isLegal(String name) {
        return problem(name).isEmpty();
    }

    /** @throws IllegalArgumentException naming the rule broken */
    public static void requireLegal(String name) {
        problem(name).ifPresent(p -> {
            throw new IllegalArgumentException(p);
        });
    }
}
