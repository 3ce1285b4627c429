package io.kaas.protocol;

import io.kaas.storage.segment.FileSlice;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * A Fetch partition's records as a region of a segment file. Sizing works like any records field;
 * {@code net.ResponseEncoder} leaves a gap for it in the encoded bytes and sends the region itself
 * with sendfile, so the response on the wire is byte-identical to one carrying the copied bytes.
 *
 * <p>The slice holds its segment file open until released: the file region written to the socket
 * releases it once sent (or failed); a response that is never written goes through {@link #releaseAll}.
 */
public record FileSliceRecords(FileSlice slice) implements BaseRecords {
    /**
     * Releases the file slices a response holds, for a response that will not be written (connection
     * gone, encoding failed, a Fetch attempt superseded by the next). Releasing twice, or after a file
     * region took the slice over, does nothing.
     */
    public static void releaseAll(ApiMessage body) {
        if (!(body instanceof FetchResponseData fetch)) {
            return;
        }
        for (FetchResponseData.FetchableTopicResponse t : fetch.responses()) {
            for (FetchResponseData.PartitionData p : t.partitions()) {
                if (p.records() instanceof FileSliceRecords r) {
                    r.slice().release();
                }
            }
        }
    }

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
