package io.kaas.security;

import io.kaas.storage.format.StateJson;
import io.kaas.storage.io.FileStamp;
import io.kaas.storage.io.StateFileLock;
import io.kaas.storage.io.StorageException;
import io.kaas.storage.layout.ClusterDir;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * SCRAM credentials in {@code <data>/__cluster/credentials.json}: per user and mechanism the salt,
 * StoredKey, ServerKey and iteration count of RFC 5802 — what Apache keeps in its metadata log. No
 * password is ever stored; PLAIN is checked by deriving the StoredKey from the offered password.
 *
 * <p>The broker, the other brokers of a shared directory and the offline {@code kaas user} commands
 * share the file. Each change reads and rewrites it under its {@link StateFileLock}, atomically
 * ({@link StateJson#write}); a lookup re-reads the file when its {@link FileStamp} changed, so a user
 * added elsewhere is seen by a running broker at its next authentication. Thread-safe (monitor).
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

    private final Path file;
    private SortedMap<String, SortedMap<String, StoredCredential>> users = new TreeMap<>();
    /** The file's version {@link #users} was read from; empty when there was no file, null before the first read. */
    private Optional<FileStamp> loaded;

    public ScramCredentialStore(Path file) {
        this.file = file;
    }

    /** The store of a data dir. */
    public static ScramCredentialStore inDataDir(Path dataDir) {
        return new ScramCredentialStore(ClusterDir.credentials(ClusterDir.of(dataDir)));
    }

    public Path file() {
        return file;
    }

    public synchronized Optional<ScramCredential> lookup(String user, ScramMechanism mechanism) {
        reloadIfChanged();
        Map<String, StoredCredential> byMechanism = users.get(user);
        StoredCredential c = byMechanism == null ? null : byMechanism.get(mechanism.mechanismName());
        return Optional.ofNullable(c).map(StoredCredential::toCredential);
    }

    /** Every user with the iteration count of each mechanism it has. */
    public synchronized SortedMap<String, SortedMap<String, Integer>> describe() {
        reloadIfChanged();
        SortedMap<String, SortedMap<String, Integer>> out = new TreeMap<>();
        users.forEach((user, creds) -> {
            SortedMap<String, Integer> m = new TreeMap<>();
            creds.forEach((mech, c) -> m.put(mech, c.iterations()));
            out.put(user, m);
        });
        return Collections.unmodifiableSortedMap(out);
    }

    public synchronized void upsert(String user, ScramMechanism mechanism, ScramCredential credential) {
        try (StateFileLock lock = lock()) {
            reload();
            users.computeIfAbsent(user, u -> new TreeMap<>())
                    .put(mechanism.mechanismName(), StoredCredential.of(credential));
            save();
        }
    }

    /** @return false when the user had no credential for {@code mechanism} */
    public synchronized boolean delete(String user, ScramMechanism mechanism) {
        try (StateFileLock lock = lock()) {
            reload();
            SortedMap<String, StoredCredential> creds = users.get(user);
            if (creds == null || creds.remove(mechanism.mechanismName()) == null) {
                return false;
            }
            if (creds.isEmpty()) {
                users.remove(user);
            }
            save();
            return true;
        }
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

    /**
     * The file's {@link StateFileLock}, held from the read to the write of one change: the other brokers
     * of a shared directory and {@code kaas user} change the file too, and without it one change is lost.
     */
    private StateFileLock lock() {
        return StateFileLock.exclusive(file);
    }

    private void save() {
        StateJson.write(file, new CredentialsFile(1, users));
        ownerOnly();
        loaded = stamp();
    }

    /** rw------- where the filesystem has POSIX permissions: the keys let a thief pose as the broker. */
    private void ownerOnly() {
        try {
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException | IOException e) {
            // not a POSIX filesystem (in-memory engine, Windows): nothing to narrow
        }
    }

    private void reloadIfChanged() {
        Optional<FileStamp> now = stamp();
        if (!now.equals(loaded)) {
            reload();
        }
    }

    /** Reads the file, whatever its stamp: under the lock, a change must start from what is on disk. */
    private void reload() {
        Optional<FileStamp> before = stamp();
        CredentialsFile read =
                StateJson.read(file, CredentialsFile.class).orElse(new CredentialsFile(1, new TreeMap<>()));
        users = read.users() == null ? new TreeMap<>() : new TreeMap<>(read.users());
        users.replaceAll((u, m) -> new TreeMap<>(m));
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
