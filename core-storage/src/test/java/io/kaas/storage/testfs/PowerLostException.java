package io.kaas.storage.testfs;

import java.io.IOException;

/**
 * Thrown by every call on a {@link FaultyFileSystem} (and its channels and paths) after
 * {@link FaultyFileSystem#powerCut()}: the pre-crash world is gone, so code still running in it
 * must not be able to write.
 */
public final class PowerLostException extends IOException {
    private static final long serialVersionUID = 1L;

    PowerLostException(String message) {
        super(message);
    }
}
