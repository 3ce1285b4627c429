package io.kaas.protocol;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Which APIs, at which versions, this broker serves: the single source for both ApiVersions and the
 * request decoder's version gate, so what we advertise and what we accept cannot drift apart.
 */
public final class ServedApis {
    /** An inclusive version range. */
    public record Versions(short min, short max) {
        public boolean contains(short v) {
            return v >= min && v <= max;
        }
    }

    private final Map<ApiKeys, Versions> versions = new EnumMap<>(ApiKeys.class);

    /** Serves {@code api} at every version kafka-clients can decode. */
    public void serveAll(ApiKeys api) {
        versions.put(api, new Versions(api.oldestVersion(), api.latestVersion()));
    }

    /** Serves {@code api} from its oldest version up to {@code max} (newer ones change semantics we do not implement). */
    public void serveUpTo(ApiKeys api, int max) {
        versions.put(api, new Versions(api.oldestVersion(), (short) Math.min(max, api.latestVersion())));
    }

    /** Serves {@code api} at {@code min..max} only (an old version whose semantics we do not implement). */
    public void serveRange(ApiKeys api, int min, int max) {
        versions.put(api, new Versions((short) Math.max(min, api.oldestVersion()), (short)
                Math.min(max, api.latestVersion())));
    }

    public Optional<Versions> versions(ApiKeys api) {
        return Optional.ofNullable(versions.get(api));
    }

    public boolean serves(ApiKeys api, short version) {
        Versions v = versions.get(api);
        return v != null && v.contains(version);
    }

    public ApiVersionsResponseData.ApiVersionCollection toApiVersions() {
        ApiVersionsResponseData.ApiVersionCollection out = new ApiVersionsResponseData.ApiVersionCollection();
        versions.forEach((api, v) -> out.add(new ApiVersionsResponseData.ApiVersion()
                .setApiKey(api.id)
                .setMinVersion(v.min())
                .setMaxVersion(v.max())));
        return out;
    }
}
