/**
 * What the group and the transaction coordinators share: which of their slots ({@code __consumer_offsets} and
 * {@code __transaction_state} partitions, as Apache's) this broker coordinates now, in which coordinator epoch, and
 * the rule that a slot given up is written no more. Knows neither coordinator: {@code group} and {@code txn} point
 * here, never the reverse.
 */
package io.kaas.broker.coordinator;
