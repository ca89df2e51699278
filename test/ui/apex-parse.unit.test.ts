// Every Apex class of the Salesforce quick action parses with @apexdevtools/apex-parser (the ANTLR grammar of
// Apex, inline SOQL included, that Salesforce's own tooling builds on): a syntax error fails here, naming the
// file, line, column and message, instead of at deploy time in an org.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ApexErrorListener, ApexParserFactory } from '@apexdevtools/apex-parser';
import { describe, expect, it } from 'vitest';
import { classFiles, FORCE_APP, ROOT } from '../helpers/apex.ts';

/** The syntax errors of a class, as `file:line:column message` (ANTLR's "expecting {…}" lists cut short). */
function syntaxErrors(file: string, source: string): string[] {
  const errors: string[] = [];
  class Collect extends ApexErrorListener {
    override apexSyntaxError(line: number, column: number, message: string): void {
      const text = message.length > 160 ? `${message.slice(0, 159)}…` : message;
      errors.push(`${relative(ROOT, file)}:${line}:${column} ${text}`);
    }
  }
  // One listener on both lexer and parser: a bad string escape is the lexer's, a missing brace the parser's.
  const { parser } = ApexParserFactory.createLexerAndParser(source, new Collect());
  parser.compilationUnit();
  return errors;
}

describe('Apex classes under force-app', () => {
  it('finds the controller and its test class', () => {
    const names = classFiles.map((f) => f.slice(f.lastIndexOf('/') + 1));
    expect(names).toEqual(
      expect.arrayContaining(['BuyerIntelRefreshController.cls', 'BuyerIntelRefreshControllerTest.cls']),
    );
  });

  it.each(classFiles.map((f) => [relative(FORCE_APP, f), f]))('%s parses', (_name, file) => {
    expect(syntaxErrors(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('names the file, line and message of a method that lost its opening brace', () => {
    const file = classFiles.find((f) => f.endsWith('/BuyerIntelRefreshController.cls')) ?? '';
    const lines = readFileSync(file, 'utf8').split('\n');
    const signature = lines.findIndex((l) => l.includes('Map<String, Object> refresh(Id accountId) {'));
    expect(signature).toBeGreaterThan(0);
    const broken = lines.map((l, i) => (i === signature ? l.replace(/\s*\{$/, '') : l)).join('\n');

    const errors = syntaxErrors(file, broken);
    // The parser stumbles on the method's first statement, the line after the signature (1-based: + 2).
    expect(errors[0]).toBe(
      `connectors/salesforce/force-app/main/default/classes/BuyerIntelRefreshController.cls:${signature + 2}:8 ` +
        "mismatched input 'assertReadableAccount' expecting {'{', ';'}",
    );
  });
});
