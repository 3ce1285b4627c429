package io.kaas.broker.security;

import io.kaas.security.DelegationTokenStore;
import io.kaas.security.DelegationTokenStore.StoredToken;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.security.token.delegation.TokenInformation;
import org.apache.kafka.common.security.token.delegation.internals.DelegationTokenCache;
import org.apache.kafka.common.utils.internals.SecurityUtils;
import org.apache.kafka.security.DelegationTokenManager;
import org.apache.kafka.server.config.DelegationTokenManagerConfigs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delegation tokens (KIP-48) with Apache's rules, as its controller's {@code DelegationTokenControlManager}
 * applies them: lifetimes from {@code delegation.token.max.lifetime.ms} and
 * {@code delegation.token.expiry.time.ms}, tokens only with {@code delegation.token.secret.key} set,
 * renew and expire by owner or renewer. The tokens are {@link DelegationTokenStore}'s; what is in force is
 * held in Apache's own {@link DelegationTokenCache} through its {@link DelegationTokenManager} (HMAC-SHA512
 * of the token id under the secret key, and the SCRAM credentials a token logs in with), rebuilt from the
 * file whenever it changed (another broker of a shared directory may have written it).
 *
 * <p>An expired token cannot log in, even before {@link #sweep} deletes it. Thread-safe (monitor).
 */
public final class DelegationTokens {
    private static final Logger LOG = LoggerFactory.getLogger(DelegationTokens.class);

    /** What CreateDelegationToken answers. */
    public record Created(Errors error, TokenInformation info, byte[] hmac) {}

    /** What RenewDelegationToken and ExpireDelegationToken answer. */
    public record Changed(Errors error, long expiryTimestamp) {
        static Changed failed(Errors e) {
            return new Changed(e, DelegationTokenManager.ERROR_TIMESTAMP);
        }
    }

    /** A token a SCRAM login may use. */
    public record Login(ScramCredential credential, String owner, long expiryTimestamp) {}

    private final DelegationTokenManagerConfigs config;
    private final DelegationTokenStore store;
    private final LongSupplier clock;
    private final DelegationTokenCache cache = new DelegationTokenCache(ScramMechanism.mechanismNames());
    private final DelegationTokenManager manager;
    /** The file's tokens {@link #cache} holds; guarded by this. */
    private SortedMap<String, StoredToken> applied = java.util.Collections.emptySortedMap();

    public DelegationTokens(Map<String, ?> settings, DelegationTokenStore store, LongSupplier clock) {
        // doLog false: AbstractConfig's multi-line INFO dump would break the broker's one-line log format.
        this.config = new DelegationTokenManagerConfigs(
                new AbstractConfig(DelegationTokenManagerConfigs.CONFIG_DEF, settings, false));
        this.store = store;
        this.clock = clock;
        this.manager = new DelegationTokenManager(config, cache);
    }

    /** {@code delegation.token.secret.key} is set. */
    public boolean enabled() {
        return config.tokenAuthEnabled();
    }

    /** {@code delegation.token.expiry.check.interval.ms}: how often {@link #sweep} runs. */
    public long sweepIntervalMs() {
        return config.delegationTokenExpiryCheckIntervalMs();
    }

    /**
     * Apache's {@code allowTokenRequests}: tokens are managed only over an authenticated connection that
     * did not itself log in with a token — not over PLAINTEXT, nor over TLS without a client certificate.
     */
    public static boolean mayManageTokens(io.kaas.protocol.RequestContext ctx) {
        KafkaPrincipal p = ctx.principal();
        org.apache.kafka.common.security.auth.SecurityProtocol protocol = ctx.securityProtocol();
        return !p.tokenAuthenticated()
                && protocol != org.apache.kafka.common.security.auth.SecurityProtocol.PLAINTEXT
                && !(protocol == org.apache.kafka.common.security.auth.SecurityProtocol.SSL
                        && p.equals(KafkaPrincipal.ANONYMOUS));
    }

    public synchronized Created create(
            KafkaPrincipal requester, KafkaPrincipal owner, Collection<KafkaPrincipal> renewers, long maxLifetimeMs) {
        if (!enabled()) {
            return new Created(Errors.DELEGATION_TOKEN_AUTH_DISABLED, null, null);
        }
        for (KafkaPrincipal r : renewers) {
            if (!r.getPrincipalType().equals(KafkaPrincipal.USER_TYPE)) {
                return new Created(Errors.INVALID_PRINCIPAL_TYPE, null, null);
            }
        }
        long now = clock.getAsLong();
        long maxLife = config.delegationTokenMaxLifeMs();
        if (maxLifetimeMs > 0) {
            maxLife = Math.min(maxLife, maxLifetimeMs);
        }
        long maxTimestamp = now + maxLife;
        long expiry = Math.min(maxTimestamp, now + config.delegationTokenExpiryTimeMs());
        String tokenId = Uuid.randomUuid().toString();
        TokenInformation info = new TokenInformation(
                tokenId,
                plain(owner),
                plain(requester),
                renewers.stream().map(DelegationTokens::plain).toList(),
                now,
                maxTimestamp,
                expiry);
        byte[] hmac = manager.getDelegationToken(info).hmac();
        StoredToken stored = new StoredToken(
                info.owner().toString(),
                info.tokenRequester().toString(),
                info.renewers().stream().map(KafkaPrincipal::toString).toList(),
                now,
                expiry,
                maxTimestamp,
                sha256(hmac));
        store.update(m -> {
            m.put(tokenId, stored);
            return m;
        });
        sync();
        return new Created(Errors.NONE, info, hmac);
    }

    public synchronized Changed renew(byte[] hmac, KafkaPrincipal renewer, long renewPeriodMs) {
        sync();
        long now = clock.getAsLong();
        TokenInformation info = cache.tokenForHmac(Base64.getEncoder().encodeToString(hmac));
        Errors refused = refused(info, renewer, now);
        if (refused != null) {
            return Changed.failed(refused);
        }
        long renewLife = config.delegationTokenExpiryTimeMs();
        if (renewPeriodMs > 0) {
            renewLife = Math.min(renewLife, renewPeriodMs);
        }
        long expiry = Math.min(info.maxTimestamp(), now + renewLife);
        setExpiry(info.tokenId(), expiry);
        return new Changed(Errors.NONE, expiry);
    }

    /** A negative {@code expiryPeriodMs} deletes the token at once, as Apache does. */
    public synchronized Changed expire(byte[] hmac, KafkaPrincipal principal, long expiryPeriodMs) {
        if (!enabled()) {
            return Changed.failed(Errors.DELEGATION_TOKEN_AUTH_DISABLED);
        }
        sync();
        long now = clock.getAsLong();
        TokenInformation info = cache.tokenForHmac(Base64.getEncoder().encodeToString(hmac));
        Errors refused = refused(info, principal, now);
        if (refused != null) {
            return Changed.failed(refused);
        }
        if (expiryPeriodMs < 0) {
            String id = info.tokenId();
            store.update(m -> {
                m.remove(id);
                return m;
            });
            sync();
            return new Changed(Errors.NONE, expiryPeriodMs);
        }
        long expiry = Math.min(info.maxTimestamp(), now + expiryPeriodMs);
        setExpiry(info.tokenId(), expiry);
        return new Changed(Errors.NONE, expiry);
    }

    /** The tokens {@code eligible} keeps, each with its HMAC (Apache's {@code getTokens}). */
    public synchronized List<DelegationToken> describe(Predicate<TokenInformation> eligible) {
        sync();
        return manager.getTokens(eligible);
    }

    /** The token {@code tokenId} for a SCRAM login, unless unknown or expired. */
    public synchronized Optional<Login> login(String tokenId, ScramMechanism mechanism) {
        if (!enabled()) {
            return Optional.empty();
        }
        sync();
        TokenInformation info = cache.token(tokenId);
        if (info == null || expired(info, clock.getAsLong())) {
            return Optional.empty();
        }
        ScramCredential c = cache.credential(mechanism.mechanismName(), tokenId);
        return c == null
                ? Optional.empty()
                : Optional.of(new Login(c, info.owner().getName(), info.expiryTimestamp()));
    }

    /** Deletes the tokens past their expiry or maximum lifetime; returns how many. */
    public synchronized int sweep() {
        long now = clock.getAsLong();
        int[] removed = {0};
        store.update(m -> {
            int before = m.size();
            m.values().removeIf(t -> t.expiredAt(now));
            removed[0] = before - m.size();
            return m;
        });
        sync();
        return removed[0];
    }

    private Errors refused(TokenInformation info, KafkaPrincipal principal, long now) {
        if (info == null) {
            return Errors.DELEGATION_TOKEN_NOT_FOUND;
        }
        if (expired(info, now)) {
            return Errors.DELEGATION_TOKEN_EXPIRED;
        }
        if (!info.ownerOrRenewer(plain(principal))) {
            return Errors.DELEGATION_TOKEN_OWNER_MISMATCH;
        }
        return null;
    }

    private void setExpiry(String tokenId, long expiry) {
        store.update(m -> {
            StoredToken t = m.get(tokenId);
            if (t != null) {
                m.put(tokenId, t.withExpiry(expiry));
            }
            return m;
        });
        sync();
    }

    private static boolean expired(TokenInformation info, long now) {
        return info.maxTimestamp() < now || info.expiryTimestamp() < now;
    }

    /** Brings {@link #cache} to the file's tokens: those added or changed are (re)computed, the others dropped. */
    private void sync() {
        SortedMap<String, StoredToken> now = store.tokens();
        if (now == applied || !enabled()) {
            return;
        }
        for (String id : new ArrayList<>(applied.keySet())) {
            if (!now.containsKey(id)) {
                manager.removeToken(id);
            }
        }
        now.forEach((id, t) -> {
            if (!t.equals(applied.get(id))) {
                apply(id, t);
            }
        });
        applied = now;
    }

    private void apply(String id, StoredToken t) {
        TokenInformation info = new TokenInformation(
                id,
                SecurityUtils.parseKafkaPrincipal(t.owner()),
                SecurityUtils.parseKafkaPrincipal(t.requester()),
                t.renewers().stream().map(SecurityUtils::parseKafkaPrincipal).toList(),
                t.issueTimestamp(),
                t.maxTimestamp(),
                t.expiryTimestamp());
        DelegationToken token = manager.getDelegationToken(info);
        if (!sha256(token.hmac()).equals(t.hmacSha256())) {
            // Made under another delegation.token.secret.key: its holder's HMAC is not ours, it cannot be used.
            LOG.warn(
                    "{}: delegation token {} was not made with this broker's delegation.token.secret.key; ignored",
                    store.file(),
                    id);
            manager.removeToken(id);
            return;
        }
        try {
            manager.updateToken(token);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SCRAM is not available in this JVM", e);
        }
    }

    /** A principal without the token-authenticated mark (it is no part of a token's owner or renewers). */
    private static KafkaPrincipal plain(KafkaPrincipal p) {
        return new KafkaPrincipal(p.getPrincipalType(), p.getName());
    }

    private static String sha256(byte[] hmac) {
        try {
            return Base64.getEncoder()
                    .encodeToString(MessageDigest.getInstance("SHA-256").digest(hmac));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JVM", e);
        }
    }
}
