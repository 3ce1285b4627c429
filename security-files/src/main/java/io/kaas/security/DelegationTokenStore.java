package io.kaas.security;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.FileStamp;
import io.kaas.storage.io.StateFileLock;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Delegation tokens in {@code <data>/__cluster/delegation-tokens.json}: per token id its owner,
 * requester, renewers and times — what Apache keeps in its metadata log ({@code DelegationTokenRecord})
 * — and the SHA-256 of its HMAC. The HMAC itself is never stored: the broker derives it from
 * {@code delegation.token.secret.key} and the token id, as Apache does, and the hash tells a token made
 * under another key from a valid one.
 *
 * <p>Shared like {@link ScramCredentialStore}: each change reads and rewrites the file under its
 * {@link StateFileLock}, atomically and fsynced ({@link StateJson#write}); {@link #tokens} re-reads it
 * when its {@link FileStamp} changed. Thread-safe (monitor).
 */
public final class DelegationTokenStore {
    /** The file's shape. Unknown fields are ignored by {@link StateJson}. */
    public record TokensFile(int version, SortedMap<String, StoredToken> tokens) {}

    /**
     * One token; principals as {@code Type:name}, times in epoch milliseconds.
     *
     * @param hmacSha256 base64 of the SHA-256 of the token's HMAC
     */
    public record StoredToken(
            String owner,
            String requester,
            List<String> renewers,
            long issueTimestamp,
            long expiryTimestamp,
            long maxTimestamp,
            String hmacSha256) {
        public StoredToken {
            renewers = renewers == null ? List.of() : List.copyOf(renewers);
        }

        public StoredToken withExpiry(long at) {
            return new StoredToken(owner, requester, renewers, issueTimestamp, at, maxTimestamp, hmacSha256);
        }

        /** Past its expiry or its maximum lifetime at {@code nowMs}. */
        public boolean expiredAt(long nowMs) {
            return expiryTimestamp < nowMs || maxTimestamp < nowMs;
        }
    }

    private final Path file;
    private SortedMap<String, StoredToken> tokens = Collections.emptySortedMap();
    /** The version {@link #tokens} was read from; empty when there was no file, null before the first read. */
    private Optional<FileStamp> loaded;

    public DelegationTokenStore(Path file) {
        this.file = file;
    }

    public static DelegationTokenStore inDataDir(Path dataDir) {
        return new DelegationTokenStore(ClusterDir.delegationTokens(ClusterDir.of(dataDir)));
    }

    public Path file() {
        return file;
    }

    /** Every token by id, as the file holds them now; the same instance while the file is unchanged. */
    public synchronized SortedMap<String, StoredToken> tokens() {
        Optional<FileStamp> now = stamp();
        if (!now.equals(loaded)) {
            reload();
        }
        return tokens;
    }

    /**
     * Applies {@code change} to the tokens on disk under the file's lock and writes the result when it
     * differs. {@code change} gets a mutable copy and returns it (or another map).
     */
    public synchronized SortedMap<String, StoredToken> update(UnaryOperator<SortedMap<String, StoredToken>> change) {
        try (StateFileLock lock = StateFileLock.exclusive(file)) {
            reload();
            SortedMap<String, StoredToken> next = change.apply(new TreeMap<>(tokens));
            if (!next.equals(tokens)) {
                StateJson.write(file, new TokensFile(1, new TreeMap<>(next)));
                ownerOnly();
                tokens = Collections.unmodifiableSortedMap(new TreeMap<>(next));
                loaded = stamp();
            }
            return tokens;
        }
    }

    /** rw------- where the filesystem has POSIX permissions. */
    private void ownerOnly() {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX filesystem: nothing to narrow
        }
    }

    private void reload() {
        Optional<FileStamp> before = stamp();
        TokensFile read = StateJson.read(file, TokensFile.class).orElse(new TokensFile(1, new TreeMap<>()));
        tokens = Collections.unmodifiableSortedMap(
                read.tokens() == null ? new TreeMap<>() : new TreeMap<>(read.tokens()));
        loaded = before;
    }

    private Optional<FileStamp> stamp() {
        try {
            return FileStamp.of(file);
        } catch (IOException e) {
            throw new StorageException(StorageException.Kind.IO, file + ": cannot read: " + e.getMessage(), e);
        }
    }
}
