package io.kaas.inspect.verify;

import java.nio.file.Path;

/** One thing {@code verify} found wrong, at a byte position of a file (-1 when the whole file is meant). */
public record Problem(Path file, long position, String message) {
    @Override
    public String toString() {
        return position < 0 ? file + ": " + message : file + ":" + position + ": " + message;
    }
}
