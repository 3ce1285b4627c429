package io.kaas.storage.testfs;

import java.nio.file.Path;

/**
 * Which paths a fault applies to. Paths are compared on the delegate filesystem, so a scope built
 * from a path of one {@link FaultyFileSystem} still matches after {@link FaultyFileSystem#powerCut()}
 * hands out a new instance over the same delegate.
 */
@FunctionalInterface
public interface Scope {

    /** @param path absolute, normalized path of the delegate filesystem */
    boolean includes(Path path);

    default boolean matches(Path path) {
        return includes(plain(path));
    }

    default Scope and(Scope other) {
        return p -> includes(p) && other.includes(p);
    }

    static Scope everything() {
        return p -> true;
    }

    /** {@code dir} itself and everything below it. */
    static Scope under(Path dir) {
        Path root = plain(dir);
        return p -> p.startsWith(root);
    }

    /** Exactly one file or directory. */
    static Scope path(Path file) {
        Path only = plain(file);
        return p -> p.equals(only);
    }

    /** Files whose name ends with {@code suffix}, e.g. {@code ".log"}. */
    static Scope fileNameEndsWith(String suffix) {
        return p -> p.getFileName() != null && p.getFileName().toString().endsWith(suffix);
    }

    /** The delegate path behind a wrapper path, absolute and normalized. */
    static Path plain(Path path) {
        Path p = path instanceof FaultyPath fp ? fp.delegate() : path;
        return p.toAbsolutePath().normalize();
    }
}
