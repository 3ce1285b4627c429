package io.kaas.storage.format;

/**
 * Where a {@link CodecSite} reports that it ran: the site calls {@link #tripped} only when it decodes or
 * re-encodes, so a path that never reaches a site pays nothing. The engine passes its
 * {@code EngineObserver} (the broker's metrics) down as one; offline tools pass {@link #NONE}.
 *
 * <p>Called on whichever thread runs the site (a handler, a cleaner thread): implementations must be
 * cheap, thread-safe, and never throw.
 */
@FunctionalInterface
public interface CodecTripwire {
    /** Counts nothing. */
    CodecTripwire NONE = (site, count) -> {};

    /**
     * {@code site} ran over {@code count} units of its {@link CodecSite.Kind}: records read for a
     * {@code RECORD_DECODE} site, batches written for a {@code BATCH_REENCODE} one.
     */
    void tripped(CodecSite site, long count);
}
