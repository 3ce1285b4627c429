package io.kaas.migration;

import io.kaas.storage.io.StorageException;

/** Apache left transactions ongoing and the run was not allowed to abort them: nothing was written. */
public final class OpenTransactionsException extends StorageException {
    private static final long serialVersionUID = 1L;

    public OpenTransactionsException(String message) {
        super(Kind.DAMAGED, message);
    }
}
