package io.kaas.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * A coordination backend, found by the scheme of {@code --coordinator}'s URI ({@code etcd://}, {@code k8s://}) through
 * {@link ServiceLoader}: each backend module lists its provider in
 * {@code META-INF/services/io.kaas.cluster.ClusterStoreProvider}, so neither this module nor the broker names one.
 */
public interface ClusterStoreProvider {
    /** The URI schemes this backend answers to, as written before {@code ://} (compared exactly). */
    Set<String> schemes();

    /** What {@code --coordinator} takes for this backend, for help texts and errors ({@code etcd://HOST:PORT...}). */
    String form();

    /**
     * Parses {@code spec}, whose scheme is one of {@link #schemes()}, into where the store is; nothing is opened
     * before {@link StoreAddress#connect}.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    StoreAddress address(String spec);

    /** The providers on the class path, in the order {@link ServiceLoader} finds them. */
    static List<ClusterStoreProvider> installed() {
        List<ClusterStoreProvider> out = new ArrayList<>();
        ServiceLoader.load(ClusterStoreProvider.class, ClusterStoreProvider.class.getClassLoader())
                .forEach(out::add);
        return out;
    }
}
