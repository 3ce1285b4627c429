package io.kaas.storage.testfs;

/**
 * What a power cut leaves of bytes appended to a file after its last fsync. Overwrites inside the
 * fsynced length and truncations are always undone; only growth past the durable length is torn.
 */
public enum TornTail {
    /** Every unsynced byte is lost: each file is exactly its last-fsynced content. */
    DROP,
    /** A random-length prefix of the unsynced appended bytes survives (the page cache got that far). */
    KEEP_RANDOM_PREFIX,
    /**
     * The file grows by a random length of zero bytes: the size reached the disk but the data
     * blocks did not, as ext4 and xfs can leave it.
     */
    ZERO_FILL_RANDOM_LENGTH
}
