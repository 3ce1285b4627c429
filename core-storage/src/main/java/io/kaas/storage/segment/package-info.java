/**
 * One segment: its log and sparse index files, positional append, reads by offset with the one
 * whole-batch rule, and the two walks over its bytes (the header-only walk behind Fetch and lookups, the
 * CRC-checked walk behind recovery and the tools). Not thread-safe on its own: appends and changes run
 * under the owning partition's lock, reads on published sizes.
 */
package io.kaas.storage.segment;
