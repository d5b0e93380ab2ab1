package dev.idemlab.idempotency.store.postgres;

import org.postgresql.Driver;
import org.postgresql.ds.common.BaseDataSource;

import java.lang.reflect.Method;
import java.sql.SQLException;
import java.util.Properties;

import javax.sql.DataSource;

/**
 * Reads where a store connects out of a JDBC URL or a {@code DataSource}: {@code host:port} for
 * {@code describe()}, and the whole target (host, port, database and role) for the messages of
 * failures, so that a wrong role or database is seen in the message and in a service's logs without
 * reading the configuration. Stateless and thread-safe.
 */
final class ServerAddress {

    private ServerAddress() { }

    /** {@code host:port} as the driver parses the URL (first host of a list), or the URL itself. */
    static String of(String jdbcUrl) {
        Properties parsed = Driver.parseURL(jdbcUrl, new Properties());
        if (parsed == null) {
            return jdbcUrl;
        }
        String hosts = parsed.getProperty("PGHOST", "localhost");
        String ports = parsed.getProperty("PGPORT", "5432");
        return hosts.split(",")[0] + ":" + ports.split(",")[0];
    }

    /**
     * {@code host:port, database D, role R} for a URL and the user given beside it ({@code null}: the
     * URL's own, else the driver's default, the operating system's user name).
     */
    static String target(String jdbcUrl, String user) {
        Properties parsed = Driver.parseURL(jdbcUrl, new Properties());
        if (parsed == null) {
            return jdbcUrl;
        }
        String role = user != null ? user : parsed.getProperty("user");
        return of(jdbcUrl) + ", database " + parsed.getProperty("PGDBNAME", "(the role's name)")
                + ", role " + (role != null ? role : "(the operating system's user name)");
    }

    /**
     * The target of a service's {@code DataSource}: the driver's own data sources, and pools that name
     * their URL and user as JavaBean properties ({@code jdbcUrl} or {@code url}, {@code username} or
     * {@code user}, as HikariCP's and most others do), read without a compile-time dependency on any
     * pool; {@code null} when the data source names neither.
     */
    static String target(DataSource dataSource) {
        try {
            if (dataSource.isWrapperFor(BaseDataSource.class)) {
                BaseDataSource driver = dataSource.unwrap(BaseDataSource.class);
                return target(driver.getUrl(), driver.getUser());
            }
        } catch (SQLException | RuntimeException notThere) {
            // fall through to the bean properties
        }
        String url = property(dataSource, "getJdbcUrl", "getUrl");
        if (url == null || !url.startsWith("jdbc:postgresql:")) {
            return null;
        }
        return target(url, property(dataSource, "getUsername", "getUser"));
    }

    private static String property(Object bean, String... getters) {
        for (String getter : getters) {
            try {
                Method method = bean.getClass().getMethod(getter);
                Object value = method.invoke(bean);
                if (value instanceof String text && !text.isBlank()) {
                    return text;
                }
            } catch (ReflectiveOperationException | RuntimeException absent) {
                // not this bean's property: try the next
            }
        }
        return null;
    }
}
