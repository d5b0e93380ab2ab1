package dev.idemlab.peers.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Reads a library's version from its jar, so that what a peer reports is what actually ran. */
final class LibraryVersion {

    private static final String PINNED = "pinned-versions.properties";

    private LibraryVersion() { }

    /**
     * The version in the jar's Maven {@code pom.properties}; else its manifest's Implementation-Version
     * when the manifest is the library's own (its Implementation-Title is the artifact); else the
     * version this module's build pins (a jar repackaged into another, such as lab.jar, keeps the
     * classes but not the manifest); else {@code "unknown"}.
     */
    static String of(String groupId, String artifactId, Class<?> fromJar) {
        String version = property(fromJar, "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties", "version");
        if (version != null) {
            return version;
        }
        Package pkg = fromJar.getPackage();
        if (artifactId.equals(pkg.getImplementationTitle()) && pkg.getImplementationVersion() != null) {
            return pkg.getImplementationVersion();
        }
        version = property(LibraryVersion.class, PINNED, groupId + ":" + artifactId);
        return version != null ? version : "unknown";
    }

    private static String property(Class<?> base, String resource, String key) {
        try (InputStream in = base.getResourceAsStream(resource)) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                return properties.getProperty(key);
            }
        } catch (IOException unreadable) {
            // try the next source
        }
        return null;
    }
}
