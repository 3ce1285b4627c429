/**
 * The offline commands that only read: dump-segment prints .log, .index and state files as Apache's
 * kafka-dump-log does (same field names), with kafka-clients' record classes for deep iteration.
 */
package io.kaas.inspect;
