package io.kaas.cluster;

/** The coordination store could not be reached or answered an error; what was asked may not have happened. */
public final class CoordinationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CoordinationException(String message, Throwable cause) {
        super(message, cause);
    }

    public CoordinationException(String message) {
        super(message);
    }
}
