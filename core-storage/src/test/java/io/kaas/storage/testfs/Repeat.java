package io.kaas.storage.testfs;

/** How often a fault fires once armed. */
public enum Repeat {
    /** The first matching call fails; later calls succeed. */
    ONCE,
    /** Every matching call fails until the fault is cleared. */
    ALWAYS
}
