// Package cond evaluates DynamoDB condition expressions on the client.
//
// Package unit keeps items locked while a unit of work runs, and its readers
// show each locked item in its last committed state, computed on the client
// from the item and its lock. DynamoDB evaluates a FilterExpression (or a
// key condition on a secondary index) on the item as stored, which for a
// locked item may not be the state shown; and a unit must decide an op's
// condition on "no item" for an item it locked while it was missing. In both
// cases the condition has to be evaluated here, exactly as DynamoDB would.
//
// [Parse] reads the grammar of ConditionExpression, FilterExpression and
// KeyConditionExpression, as the SDK's feature/dynamodb/expression builder
// renders it and as people write it:
//
//   - comparisons a = b, a <> b, a < b, a <= b, a > b, a >= b;
//     a BETWEEN b AND c; a IN (b, c, ...) (1 to 100 operands);
//   - AND, OR, NOT and parentheses, NOT binding tighter than AND, AND
//     tighter than OR, and comparisons tighter than NOT;
//   - the functions attribute_exists(path), attribute_not_exists(path),
//     attribute_type(operand, :type), begins_with(a, b), contains(a, b), and
//     size(operand) as an operand;
//   - operands that are document paths (Name, #name, a.b, #a[3].#b, with
//     spaces allowed around . and [ ]), value placeholders (:v) and size();
//     any operand may be put in parentheses.
//
// Keywords (AND, OR, NOT, BETWEEN, IN) are case-insensitive; function names
// are not (DynamoDB refuses SIZE(x)). [Expr.Eval] evaluates a parsed
// expression on an item, given the request's ExpressionAttributeNames and
// ExpressionAttributeValues; a nil item is "no item", on which every path
// is absent.
//
// # DynamoDB's rules
//
// The semantics are DynamoDB's, as observed on DynamoDB Local; the
// differential test in this package checks them against it on thousands of
// random items and conditions, both as a ConditionCheck and as a Scan
// filter. In short:
//
//   - An operand that is absent (a missing path, or size() of a missing
//     attribute or of a type that has no size) makes every comparison false
//     except <>, which is true: a <> b is exactly NOT (a = b). So are
//     operands of different types: N 1 <> S "1" is true.
//   - = compares any two values deeply: numbers by value (1 = 1.0 = 1E0),
//     sets as sets, lists in order, maps by keys. <, <=, >, >= and BETWEEN
//     order numbers by value, strings by their UTF-8 bytes, binaries by
//     bytes, and are false for any other type or for mixed types.
//   - Numbers are exact decimals of up to 38 significant digits, compared
//     on their digits, never through float64.
//   - size() counts a string in UTF-16 code units (DynamoDB's length of
//     "é𝄞" is 3, not its 6 UTF-8 bytes), a binary in bytes, a set, list or
//     map in elements.
//   - contains(a, b) is a substring test when both are S or both are B,
//     membership when a is a set and b an element of its type, and element
//     equality when a is a list; false otherwise. begins_with(a, b) is a
//     prefix test when both are S or both are B; false otherwise.
//   - attribute_type(a, :t) takes :t among S, SS, N, NS, B, BS, BOOL, NULL,
//     L, M (case-sensitive).
//
// An expression DynamoDB would refuse with a ValidationException is an error
// matching [ErrInvalid], from Parse (syntax, unknown functions, reserved
// words used as names, redundant parentheses, more than 300 operators, more
// than 4 KB, paths deeper than 32 levels) or from Eval (an undefined #name
// or :value, a malformed value, a value of a type the operator refuses such
// as BOOL in <, a BETWEEN whose constant bounds are out of order, the same
// path on both sides of an operator). Eval checks the whole expression
// before it evaluates any of it, so the answer never depends on which
// branch an item happens to take. It does not check for names or values
// that the expression leaves unused: a request shares those maps between
// its expressions, so only the caller can tell.
//
// Eval knows nothing of the table. DynamoDB refuses a path into a key
// attribute (pk.x, pk[0]: "Key attributes must be scalars"), which Eval
// evaluates as absent; and it accepts in a KeyConditionExpression only a
// subset of the grammar, which Parse does not enforce. One difference from
// DynamoDB Local: Eval reads only ASCII digits in numbers, where Java, under
// DynamoDB Local, also reads other Unicode digits. The differential test
// generates none of these cases. The reserved words are those DynamoDB
// Local refuses, each checked by a test: the documented list, less SIZE and
// CONVERT, plus REMOVE.
//
// # Update, projection and key condition expressions
//
// [ParseUpdate] reads an UpdateExpression (SET with +, -, list_append and
// if_not_exists; REMOVE; ADD; DELETE) and [Update.Apply] applies it to an
// item as DynamoDB Local does: every operand reads the item before the
// update, list indexes refer to the lists before the update (REMOVE l[1],
// l[2] removes two elements; SET or ADD past the end appends, in index
// order), DELETE of a set's last elements removes the attribute, ADD on
// nothing creates. Arithmetic is exact, with Java's BigDecimal scale (2.5
// + 2.5 is "5.0"), refused beyond 38 digits or out of range. Values of
// ExpressionAttributeValues are stored as given, except number set
// elements, which DynamoDB Local rewrites as BigDecimal.toString does (and
// as toPlainString when ADD or DELETE changes a stored set). An update of
// no item sees the key it creates the item with: pass Apply an item
// holding only the key. DynamoDB checks every value of the request before
// it reads any expression: [ValidateExpressionValues] does that check.
// DynamoDB checks the update against the request (placeholders, paths
// that overlap or conflict, operand types) as it parses it, before the
// ConditionExpression: call [Update.Check] right after ParseUpdate; the
// update of a key attribute is refused by Apply, after the condition.
// [Update.Paths] gives the written paths, for ReturnValues UPDATED_OLD and
// UPDATED_NEW with [Project].
//
// [ParseProjection] reads a ProjectionExpression, and [Project] cuts an
// item down to its paths: list elements are kept in index order and
// compacted, and a path that leads nowhere adds nothing. [ParseKeyCondition]
// reads a KeyConditionExpression into its terms, in the order written;
// [KeyCond.Schema] matches them to a key schema.
//
// [CanonicalNumber], [CompareValues], [Equal] and [ValidateValue] are
// DynamoDB's normal form of numbers, order of key values, equality, and
// checks of a supplied value.
//
// # Messages
//
// Every error DynamoDB answers with a ValidationException matches
// [ErrInvalid] and is an [*Error]; [Message] returns DynamoDB Local's text
// for it, with the prefix of the parameter where DynamoDB gives one
// ("Invalid UpdateExpression: ", "Invalid ProjectionExpression: ", and for
// conditions the parameter given to [ParseAs]: "Invalid ConditionExpression: ",
// "Invalid FilterExpression: ", "Invalid KeyConditionExpression: ").
// Messages about the item ("The provided expression refers to an attribute
// that does not exist in the item") and about values ("ExpressionAttributeValues
// contains invalid value: ... for key :v") have no such prefix, as in
// DynamoDB. [ValidateValue] returns the inner text, since the context
// DynamoDB adds depends on the parameter that holds the value.
//
// The messages' texts are kept apart from the checks, in messages.go.
//
// Known differences from DynamoDB Local's messages:
//
//   - "Two document paths overlap": DynamoDB Local names the overlapping
//     path as path one, but as path two sometimes another path of the
//     expression, in an order this package does not reproduce; this
//     package names the two paths that overlap. The prefix and the first
//     clause are DynamoDB's.
//   - When several actions of one update fail on the item, DynamoDB
//     Local reports one in an order this package does not reproduce (the
//     first failing action here): the message is then another of "The
//     document path provided in the update expression is invalid for
//     update", "An operand in the update expression has an incorrect data
//     type", "The provided expression refers to an attribute that does not
//     exist in the item" or a number error.
//   - ReturnValues UPDATED_OLD and UPDATED_NEW: DynamoDB Local returns
//     whole top-level attributes, and leaves out some whose update changed
//     nothing; [Update.Paths] with [Project] gives the nested parts, as
//     DynamoDB's documentation describes.
//   - Limits not measured (expression size, operator count, nesting) give
//     DynamoDB's prefix with a message of this package.
//   - Placeholders left unused are the caller's check (a request shares
//     its names and values between expressions): [Expr.Names],
//     [Expr.Values], [Update.Names], [Update.Values] and
//     [Projection.Names] list those used.
//
// Neither Parse nor Eval calls DynamoDB. An [Expr] is immutable: one may be
// evaluated by many goroutines at once.
package cond
