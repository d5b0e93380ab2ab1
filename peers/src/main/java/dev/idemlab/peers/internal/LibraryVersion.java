package dev.idemlab.peers.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Reads a library's version from its jar, so that what a peer reports is what actually ran. */
final class LibraryVersion {

    private LibraryVersion() { }

    /**
     * The version in the jar's Maven {@code pom.properties}, else its manifest's
     * Implementation-Version, else {@code "unknown"}.
     */
    static String of(String groupId, String artifactId, Class<?> fromJar) {
        String path = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = fromJar.getResourceAsStream(path)) {
            if (in != null) {
                Properties properties = new Properties();
                properties.load(in);
                String version = properties.getProperty("version");
                if (version != null) {
                    return version;
                }
            }
        } catch (IOException unreadable) {
            // fall back to the manifest
        }
        String version = fromJar.getPackage().getImplementationVersion();
        return version != null ? version : "unknown";
    }
}
