package dev.lockstep.fencing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.util.Assert;

import dev.lockstep.LockHandle;
import dev.lockstep.StaleLockException;
import dev.lockstep.internal.ThreadHolds;

/**
 * Updates rows only when the writer's fencing token is above the one stored in the row, in one
 * conditional {@code UPDATE}, so that a holder that lost its lock (paused past its lease, a
 * failover) cannot overwrite what a later holder wrote. The table keeps the last writer's token in
 * a {@code bigint} column (default {@value #DEFAULT_TOKEN_COLUMN}, null before the first fenced
 * write):
 *
 * <pre class="code">
 * fencing.update("app_user", "name = ?", "pin = ?", name, pin);
 * // UPDATE app_user SET fencing_token = ?, name = ? WHERE (pin = ?)
 * //     AND (fencing_token IS NULL OR fencing_token &lt; ?)
 * </pre>
 *
 * The check and the write are one statement: no read comes before it. It relies on the database
 * checking the condition again on a row another transaction changed meanwhile, as PostgreSQL,
 * MySQL (InnoDB), Oracle, SQL Server and H2 do at their default isolation. Table, column and
 * clause text go into the SQL as given: never build them from input; values go through the
 * {@code ?} parameters.
 */
public final class JdbcFencing {

	/** The token column used unless another is set. */
	public static final String DEFAULT_TOKEN_COLUMN = "fencing_token";

	private final Statements statements;

	private final String tokenColumn;

	/** Fencing on {@code jdbc}, with the token in {@value #DEFAULT_TOKEN_COLUMN}. */
	public JdbcFencing(JdbcOperations jdbc) {
		this(new Statements.OnOperations(jdbc), DEFAULT_TOKEN_COLUMN);
	}

	/** Fencing on {@code jdbc}, with the token in {@value #DEFAULT_TOKEN_COLUMN}. */
	public JdbcFencing(JdbcClient jdbc) {
		this(new Statements.OnClient(jdbc), DEFAULT_TOKEN_COLUMN);
	}

	private JdbcFencing(Statements statements, String tokenColumn) {
		this.statements = statements;
		this.tokenColumn = tokenColumn;
	}

	/** The same fencing with the token kept in {@code tokenColumn}. */
	public JdbcFencing withTokenColumn(String tokenColumn) {
		Assert.hasText(tokenColumn, "Token column must not be blank");
		return new JdbcFencing(this.statements, tokenColumn);
	}

	/**
	 * Runs {@code UPDATE <table> SET <token column> = ?, <set> WHERE (<where>) AND (<token column>
	 * IS NULL OR <token column> < ?)} with the token of the innermost lock the current thread is
	 * inside of (as inside a {@code @DistributedLock} method); when that lock was lost, the write is
	 * refused, never sent with the token of a lock taken around it.
	 * @param table the table
	 * @param set the assignments, as after {@code SET}, with {@code ?} parameters
	 * @param where the rows to update, as after {@code WHERE}, with {@code ?} parameters
	 * @param arguments the parameters of {@code set}, then those of {@code where}
	 * @return the number of rows updated; 0 when no row matches {@code where}
	 * @throws StaleLockException if the innermost lock is known lost, or rows match {@code where} but
	 * none had a lower token
	 * @throws IllegalStateException if the current thread holds no lock
	 */
	public int update(String table, String set, String where, @Nullable Object... arguments) {
		LockHandle lock = ThreadHolds.innermost()
			.orElseThrow(() -> new IllegalStateException("A fenced update of " + table + " needs a lock held by the "
					+ "current thread (a @DistributedLock method or a LockService callback); pass the LockHandle "
					+ "to update(LockHandle, ...) otherwise"));
		return update(lock, table, set, where, arguments);
	}

	/**
	 * {@link #update(String, String, String, Object...)} with the token of {@code lock}; its key
	 * names the lock in a refusal. A handle that already knows it no longer holds its lock
	 * ({@link LockHandle#isHeld()} false: closed, or lost) is refused before the database is
	 * called; one that lost its lock without knowing it yet is refused by the row's token.
	 * @throws StaleLockException if {@code lock} is not held, or rows match {@code where} but none
	 * had a lower token
	 */
	public int update(LockHandle lock, String table, String set, String where, @Nullable Object... arguments) {
		if (!lock.isHeld()) {
			throw StaleLockException.notHeld(lock.key(), lock.fencingToken(), "table " + table);
		}
		return update(lock.key(), lock.fencingToken(), table, set, where, arguments);
	}

	/**
	 * {@link #update(String, String, String, Object...)} with a token handed over by whatever held
	 * the lock ({@code key} names it in a refusal).
	 */
	public int update(String key, long fencingToken, String table, String set, String where,
			@Nullable Object... arguments) {
		Assert.hasText(table, "Table must not be blank");
		Assert.hasText(set, () -> "The SET clause of a fenced update of " + table + " must not be blank");
		Assert.hasText(where, () -> "The WHERE clause of a fenced update of " + table + " must not be blank: "
				+ "name the row to update");
		int setParameters = Parameters.count(set);
		int whereParameters = Parameters.count(where);
		Assert.isTrue(arguments.length == setParameters + whereParameters, () -> "A fenced update of " + table
				+ " has " + setParameters + " parameter(s) in its SET clause and " + whereParameters
				+ " in its WHERE clause but " + arguments.length + " argument(s)");
		List<@Nullable Object> parameters = new ArrayList<>(arguments.length + 2);
		parameters.add(fencingToken);
		parameters.addAll(Arrays.asList(arguments));
		parameters.add(fencingToken);
		String sql = "UPDATE " + table + " SET " + this.tokenColumn + " = ?, " + set + " WHERE (" + where + ") AND ("
				+ this.tokenColumn + " IS NULL OR " + this.tokenColumn + " < ?)";
		int updated = this.statements.update(sql, parameters);
		if (updated > 0) {
			return updated;
		}
		// Refused or no such row: read the token only to tell which, and to name it; the write is decided.
		List<@Nullable Object> whereArguments = Arrays.asList(arguments).subList(setParameters, arguments.length);
		List<@Nullable Long> stored = this.statements.tokens("SELECT " + this.tokenColumn + " FROM " + table
				+ " WHERE (" + where + ")", whereArguments);
		if (stored.isEmpty()) {
			return 0;
		}
		Long highest = stored.stream().filter((token) -> token != null).max(Long::compare).orElse(null);
		throw new StaleLockException(key, fencingToken, highest, "table " + table);
	}

	/** The two ways of running a statement, so that either kind of Spring JDBC object can be given. */
	private interface Statements {

		int update(String sql, List<@Nullable Object> parameters);

		List<@Nullable Long> tokens(String sql, List<@Nullable Object> parameters);

		record OnOperations(JdbcOperations jdbc) implements Statements {

			@Override
			public int update(String sql, List<@Nullable Object> parameters) {
				return this.jdbc.update(sql, parameters.toArray());
			}

			@Override
			public List<@Nullable Long> tokens(String sql, List<@Nullable Object> parameters) {
				return this.jdbc.query(sql, (row, index) -> row.getObject(1, Long.class), parameters.toArray());
			}

		}

		record OnClient(JdbcClient jdbc) implements Statements {

			@Override
			public int update(String sql, List<@Nullable Object> parameters) {
				return this.jdbc.sql(sql).params(parameters).update();
			}

			@Override
			public List<@Nullable Long> tokens(String sql, List<@Nullable Object> parameters) {
				return this.jdbc.sql(sql).params(parameters).query((row, index) -> row.getObject(1, Long.class)).list();
			}

		}

	}

	/** Counts {@code ?} parameters outside quoted text. */
	static final class Parameters {

		private Parameters() {
		}

		static int count(String clause) {
			int count = 0;
			char quote = 0;
			for (int i = 0; i < clause.length(); i++) {
				char c = clause.charAt(i);
				if (quote != 0) {
					if (c == quote) {
						quote = 0;
					}
				}
				else if (c == '\'' || c == '"') {
					quote = c;
				}
				else if (c == '?') {
					count++;
				}
			}
			return count;
		}

	}

}
