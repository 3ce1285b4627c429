package io.kaas.inspect;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One record of a deep iteration, in Apache's layout:
 * {@code | offset: N CreateTime: T keySize: K valueSize: V sequence: S headerKeys: [a,b]}, then for a
 * control record {@code endTxnMarker: COMMIT coordinatorEpoch: E}, then with data
 * {@code key: ... payload: ...}. Null keys and values are left out, as Apache does.
 *
 * @param control    the marker text ("COMMIT", "ABORT") or a control type name; null for data records
 * @param key        rendered key, null when absent or not printed
 * @param value      rendered value, null when absent or not printed
 */
public record RecordLine(
        Path file,
        long offset,
        String timestampType,
        long timestamp,
        int keySize,
        int valueSize,
        int sequence,
        List<String> headerKeys,
        String control,
        int coordinatorEpoch,
        String key,
        String value)
        implements DumpEvent {

    @Override
    public String text() {
        StringBuilder sb = new StringBuilder("| offset: ")
                .append(offset)
                .append(' ')
                .append(timestampType)
                .append(": ")
                .append(timestamp)
                .append(" keySize: ")
                .append(keySize)
                .append(" valueSize: ")
                .append(valueSize)
                .append(" sequence: ")
                .append(sequence)
                .append(" headerKeys: [")
                .append(String.join(",", headerKeys))
                .append(']');
        if (control != null) {
            if (coordinatorEpoch >= 0) {
                sb.append(" endTxnMarker: ")
                        .append(control)
                        .append(" coordinatorEpoch: ")
                        .append(coordinatorEpoch);
            } else {
                sb.append(" controlType: ").append(control);
            }
        }
        if (key != null) {
            sb.append(" key: ").append(key);
        }
        if (value != null) {
            sb.append(" payload: ").append(value);
        }
        return sb.toString();
    }

    @Override
    public Map<String, Object> json() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "record");
        m.put("file", file.toString());
        m.put("offset", offset);
        m.put("timestampType", timestampType);
        m.put("timestamp", timestamp);
        m.put("keySize", keySize);
        m.put("valueSize", valueSize);
        m.put("sequence", sequence);
        m.put("headerKeys", headerKeys);
        if (control != null) {
            m.put("control", control);
            if (coordinatorEpoch >= 0) {
                m.put("coordinatorEpoch", coordinatorEpoch);
            }
        }
        if (key != null) {
            m.put("key", key);
        }
        if (value != null) {
            m.put("payload", value);
        }
        return m;
    }
}
