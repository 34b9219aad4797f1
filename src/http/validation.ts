import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';

/**
 * Bodies are checked as sent (no coercion: "12" is not a number). Query strings and path parameters are text on the
 * wire, so they are converted to the schema's types and given its defaults before the check.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  const convert = httpPart !== 'body';
  return (value: unknown) => {
    const candidate = convert ? Value.Default(schema, Value.Convert(schema, value)) : value;
    if (check.Check(candidate)) return { value: candidate };
    return { error: check.Errors(candidate) as never };
  };
};
