/**
 * Feature levels (KIP-584): what kaas supports of each of Apache's features, the levels finalized in
 * {@code __cluster/features.json}, and Apache's controller rules for changing them (UpdateFeatures).
 */
package io.kaas.broker.feature;
