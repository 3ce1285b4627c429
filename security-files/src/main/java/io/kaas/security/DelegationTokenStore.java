package io.kaas.security;

import io.kaas.storage.format.SharedStateFile;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.StateFileLock;
import io.kaas.storage.layout.ClusterDir;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
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
 * <p>Shared by the brokers of a directory and the offline commands ({@link SharedStateFile}: each change reads
 * and rewrites the file under its {@link StateFileLock}; {@link #tokens} re-reads it when it changed), and
 * rw------- like {@link ScramCredentialStore}'s file. Thread-safe (monitor).
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

    private static final TokensFile NONE = new TokensFile(1, new TreeMap<>());

    private final SharedStateFile<TokensFile> file;
    // Guarded by this: the tokens of the file version last seen, as an unmodifiable map, and that version.
    private TokensFile seen;
    private SortedMap<String, StoredToken> tokens;

    public DelegationTokenStore(Path file) {
        this.file = SharedStateFile.ownerOnly(file, TokensFile.class, NONE);
    }

    public static DelegationTokenStore inDataDir(Path dataDir) {
        return new DelegationTokenStore(ClusterDir.delegationTokens(ClusterDir.of(dataDir)));
    }

    public Path file() {
        return file.file();
    }

    /** Every token by id, as the file holds them now; the same instance while the file is unchanged. */
    public synchronized SortedMap<String, StoredToken> tokens() {
        return view(file.current());
    }

    /**
     * Applies {@code change} to the tokens on disk under the file's lock and writes the result when it
     * differs. {@code change} gets a mutable copy and returns it (or another map).
     */
    public synchronized SortedMap<String, StoredToken> update(UnaryOperator<SortedMap<String, StoredToken>> change) {
        return view(file.update(f -> new TokensFile(1, new TreeMap<>(change.apply(new TreeMap<>(view(f)))))));
    }

    private SortedMap<String, StoredToken> view(TokensFile f) {
        if (f != seen) {
            seen = f;
            tokens =
                    Collections.unmodifiableSortedMap(f.tokens() == null ? new TreeMap<>() : new TreeMap<>(f.tokens()));
        }
        return tokens;
    }
}
