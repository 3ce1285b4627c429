package io.kaas.broker.share;

/**
 * The acknowledgement types of ShareFetch and ShareAcknowledge (KIP-932's wire codes): 0 marks an
 * offset with no record (a gap), then Apache's {@code AcknowledgeType} ACCEPT, RELEASE, REJECT, RENEW.
 */
public enum AcknowledgeType {
    GAP,
    ACCEPT,
    RELEASE,
    REJECT,
    RENEW;

    /** The type of a wire code; empty for a code no version defines. */
    public static java.util.Optional<AcknowledgeType> ofCode(byte code) {
        AcknowledgeType[] all = values();
        return code >= 0 && code < all.length ? java.util.Optional.of(all[code]) : java.util.Optional.empty();
    }
}
