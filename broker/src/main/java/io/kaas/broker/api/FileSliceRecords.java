package io.kaas.broker.api;

import io.kaas.storage.FileSlice;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * A Fetch partition's records as a region of a segment file. Sizing works like any records field;
 * {@code net.ResponseEncoder} leaves a gap for it in the encoded bytes and sends the region itself
 * with sendfile, so the response on the wire is byte-identical to one carrying the copied bytes.
 */
public record FileSliceRecords(FileSlice slice) implements BaseRecords {
    @Override
    public int sizeInBytes() {
        return slice.length();
    }

    /** Kafka's own network layer is not used: the encoder writes file slices. */
    @Override
    public RecordsSend<? extends BaseRecords> toSend() {
        throw new UnsupportedOperationException("file slices are written by ResponseEncoder");
    }
}
