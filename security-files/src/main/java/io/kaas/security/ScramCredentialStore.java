package io.kaas.security;

import io.kaas.storage.format.SharedStateFile;
import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.StateFileLock;
import io.kaas.storage.layout.ClusterDir;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * SCRAM credentials in {@code <data>/__cluster/credentials.json}: per user and mechanism the salt,
 * StoredKey, ServerKey and iteration count of RFC 5802 — what Apache keeps in its metadata log. No
 * password is ever stored; PLAIN is checked by deriving the StoredKey from the offered password.
 *
 * <p>The broker, the other brokers of a shared directory and the offline {@code kaas user} commands
 * share the file ({@link SharedStateFile}): each change reads and rewrites it under its {@link StateFileLock},
 * atomically ({@link StateJson#write}); a lookup re-reads the file when it changed, so a user added elsewhere is
 * seen by a running broker at its next authentication. The file is rw-------: the keys let a thief pose as the
 * broker. Thread-safe.
 */
public final class ScramCredentialStore {
    /** Apache's default for kafka-configs and the minimum its SCRAM mechanisms accept. */
    public static final int DEFAULT_ITERATIONS = 4096;

    /** The file's shape; byte arrays as base64. Unknown fields are ignored by {@link StateJson}. */
    public record CredentialsFile(int version, SortedMap<String, SortedMap<String, StoredCredential>> users) {}

    public record StoredCredential(String salt, String storedKey, String serverKey, int iterations) {
        static StoredCredential of(ScramCredential c) {
            Base64.Encoder b64 = Base64.getEncoder();
            return new StoredCredential(
                    b64.encodeToString(c.salt()),
                    b64.encodeToString(c.storedKey()),
                    b64.encodeToString(c.serverKey()),
                    c.iterations());
        }

        ScramCredential toCredential() {
            Base64.Decoder b64 = Base64.getDecoder();
            return new ScramCredential(b64.decode(salt), b64.decode(storedKey), b64.decode(serverKey), iterations);
        }
    }

    private static final CredentialsFile NONE = new CredentialsFile(1, new TreeMap<>());

    private final SharedStateFile<CredentialsFile> file;

    public ScramCredentialStore(Path file) {
        this.file = SharedStateFile.ownerOnly(file, CredentialsFile.class, NONE);
    }

    /** The store of a data dir. */
    public static ScramCredentialStore inDataDir(Path dataDir) {
        return new ScramCredentialStore(ClusterDir.credentials(ClusterDir.of(dataDir)));
    }

    public Path file() {
        return file.file();
    }

    public Optional<ScramCredential> lookup(String user, ScramMechanism mechanism) {
        Map<String, StoredCredential> byMechanism = usersOf(file.current()).get(user);
        StoredCredential c = byMechanism == null ? null : byMechanism.get(mechanism.mechanismName());
        return Optional.ofNullable(c).map(StoredCredential::toCredential);
    }

    /** Every user with the iteration count of each mechanism it has. */
    public SortedMap<String, SortedMap<String, Integer>> describe() {
        SortedMap<String, SortedMap<String, Integer>> out = new TreeMap<>();
        usersOf(file.current()).forEach((user, creds) -> {
            SortedMap<String, Integer> m = new TreeMap<>();
            creds.forEach((mech, c) -> m.put(mech, c.iterations()));
            out.put(user, m);
        });
        return Collections.unmodifiableSortedMap(out);
    }

    public void upsert(String user, ScramMechanism mechanism, ScramCredential credential) {
        file.update(f -> {
            SortedMap<String, SortedMap<String, StoredCredential>> users = copyOfUsers(f);
            users.computeIfAbsent(user, u -> new TreeMap<>())
                    .put(mechanism.mechanismName(), StoredCredential.of(credential));
            return new CredentialsFile(1, users);
        });
    }

    /** @return false when the user had no credential for {@code mechanism} */
    public boolean delete(String user, ScramMechanism mechanism) {
        AtomicBoolean deleted = new AtomicBoolean();
        file.update(f -> {
            SortedMap<String, SortedMap<String, StoredCredential>> users = copyOfUsers(f);
            SortedMap<String, StoredCredential> creds = users.get(user);
            if (creds == null || creds.remove(mechanism.mechanismName()) == null) {
                return f;
            }
            if (creds.isEmpty()) {
                users.remove(user);
            }
            deleted.set(true);
            return new CredentialsFile(1, users);
        });
        return deleted.get();
    }

    private static SortedMap<String, SortedMap<String, StoredCredential>> usersOf(CredentialsFile f) {
        return f.users() == null ? Collections.emptySortedMap() : f.users();
    }

    /** A mutable deep copy: the file's content itself is shared by readers and never changed. */
    private static SortedMap<String, SortedMap<String, StoredCredential>> copyOfUsers(CredentialsFile f) {
        SortedMap<String, SortedMap<String, StoredCredential>> users = new TreeMap<>();
        usersOf(f).forEach((u, m) -> users.put(u, new TreeMap<>(m)));
        return users;
    }

    /** A fresh salt and the RFC 5802 keys for {@code password}; the password itself is not kept. */
    public static ScramCredential generate(ScramMechanism mechanism, String password, int iterations) {
        checkIterations(mechanism, iterations);
        try {
            return new ScramFormatter(mechanism).generateCredential(password, iterations);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(mechanism + " is not available in this JVM", e);
        }
    }

    /** Apache's bounds (4096..16384): fewer is too cheap to attack, more lets a client burn broker CPU. */
    public static void checkIterations(ScramMechanism mechanism, int iterations) {
        if (iterations < mechanism.minIterations() || iterations > mechanism.maxIterations()) {
            throw new IllegalArgumentException(mechanism.mechanismName() + " iterations must be "
                    + mechanism.minIterations() + ".." + mechanism.maxIterations() + ", got " + iterations);
        }
    }
}
