package io.kaas.inspect;

import java.util.Map;

/** One line of dump output, renderable as Apache-style text or as one JSON object. */
public interface DumpEvent {
    String text();

    /** Fields in print order; includes a "type" key. */
    Map<String, Object> json();

    /** A diagnostic rather than data: goes to stderr in text mode. */
    default boolean diagnostic() {
        return false;
    }
}
