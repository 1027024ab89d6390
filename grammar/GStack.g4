// Grammar of the .gstack model language. See docs/language.md for the meaning of each construct.
// Built with the ANTLR 4.7.2 tool against the 4.9 C++ runtime (both ATN serialization v3).
grammar GStack;

file_        : docs systemDecl useDecl* decl* EOF ;

docs         : DOC* ;

// `prefix econ` names the system's namespace when it differs from the system's name (see E-NAMESPACE).
// `foreign "reason"` exempts the whole system from the rule (test models that borrow the real model's names).
systemDecl   : SYSTEM name=IDENT ( PREFIX ns=IDENT )? desc=STRING? foreignClause? ;
useDecl      : USE IDENT (',' IDENT)* ;

decl         : docs ( dimensionDecl | kindDecl | unitDecl | prefixDecl | refDecl | varDecl | constDecl | relationDecl
                    | exportDecl | templateDecl | instanceDecl ) ;

dimensionDecl: DIMENSION name=IDENT desc=STRING? ;
// `kind gpu_count of 1`: a quantity kind, checked like a base dimension and erased to its dimension
// after the unit check (`of` is matched as a word, so it stays usable as a name elsewhere).
kindDecl     : KIND_KW name=IDENT of=IDENT unitExpr desc=STRING? ;
// `unit m : length` makes m the base unit of a base dimension (or of a kind: `unit GPU : gpu_count`);
// `unit J = kg*m^2/s^2` derives one.
unitDecl     : UNIT name=IDENT ( ':' base=IDENT | '=' scale=signedNumber? unitExpr? ) desc=STRING? ;
prefixDecl   : PREFIX name=IDENT '=' signedNumber ;
refDecl      : REF name=IDENT citation=STRING refField* ;
refField     : KIND_KW kind=IDENT | URL url=STRING | YEAR year=NUMBER | AT locator=STRING ;

varDecl      : VAR name=qname ':' unitExpr desc=STRING? symbolClause? refList? assumeList? foreignClause? ;
// `symbol "η_gemm"`: the short math name shown beside the dotted one, and accepted wherever a name is.
symbolClause : SYMBOL sym=STRING ;
// A variable kept outside its system's namespace, with the reason (the namespace rule's explicit exception).
foreignClause: FOREIGN reason=STRING ;
// The source is required, but checked after parsing (E-CONST-SOURCE) so the message can say so.
constDecl    : CONST name=qname '=' value=signedNumber unitExpr desc=STRING? symbolClause? refList? ;
refList      : REF IDENT (',' IDENT)* ;
assumeList   : ASSUME assumption (',' assumption)* ;
assumption   : IDENT ( '(' lo=signedNumber ',' hi=signedNumber ')' )? ;

// `export headline cost_per_token = econ.cost.per_token "Cost per token"`: a name the tools read by role.
exportDecl   : EXPORT role=IDENT ( label=IDENT '=' )? target=qname desc=STRING? ;
// A family of variables and relations written once and stamped out by instances before the unit check.
templateDecl : TEMPLATE name=IDENT '(' params+=IDENT ( ',' params+=IDENT )* ')' '{' templateMember* '}' ;
templateMember : docs ( varDecl | relationDecl ) ;
instanceDecl : INSTANCE name=IDENT '=' template_=IDENT '(' templateArg ( ',' templateArg )* ')' ;
templateArg  : param=IDENT ':' ( text=STRING | value=expr ) ;

relationDecl : head=relationHead name=IDENT variantKey? validity? fallbackClause? ':' body desc=STRING? refList? ;
// `approx young when x < 1 fallback daly: ...`: the approximation to use where this one cannot be.
fallbackClause : FALLBACK target=qname ;
relationHead : EQ_KW | VARIANT | APPROX | CONSTRAINT | ITERATE | ODE | STOCHASTIC ;
variantKey   : '[' (word | NUMBER)+ ']' ;   // e.g. [dense], [stochastic], [1f1b]
// Any identifier, keywords included: variant keys are free-form labels such as [stochastic].
word         : IDENT | SYSTEM | USE | DIMENSION | UNIT | PREFIX | REF | KIND_KW | URL | YEAR | AT | VAR | CONST
             | ASSUME | FOREIGN | SYMBOL | FALLBACK | EXPORT | TEMPLATE | INSTANCE | EQ_KW | VARIANT | APPROX | CONSTRAINT | ITERATE | ODE | STOCHASTIC | WHEN | OVER | FROM
             | TIMES | DERIV | MEAN | PIECEWISE | IF | OTHERWISE | AND | OR | NOT ;
validity     : WHEN expr ;
body         : lhs=expr '=' map=expr OVER binder=IDENT FROM init=expr TIMES count=expr         # BodyIterate
             | DERIV '(' target=qname ',' indep=qname (',' order=NUMBER)? ')' '=' rhs=expr    # BodyDifferential
             | lhs=expr '~' dist=IDENT '(' expr (',' expr)* ')' (MEAN mean=expr)?              # BodyStochastic
             | lhs=expr '=' rhs=expr                                                         # BodyEquation
             | cond=expr                                                                     # BodyCondition
             ;

expr         : <assoc=right> expr '^' expr                              # Pow
             | op=('+' | '-') expr                                      # Unary
             | expr op=('*' | '/') expr                                 # MulDiv
             | expr op=('+' | '-') expr                                 # AddSub
             | expr op=('<' | '<=' | '>' | '>=' | '==' | '!=') expr     # Compare
             | NOT expr                                                 # Not
             | expr AND expr                                            # And
             | expr OR expr                                             # Or
             | PIECEWISE '{' piece (';' piece)* ';' otherwise=expr OTHERWISE ';'? '}'  # Piecewise
             | fn=IDENT '(' expr (',' expr)* ')'                        # Call
             | '(' expr ')'                                             # Paren
             | NUMBER '[' unitExpr ']'                                  # Quantity
             | NUMBER                                                   # Num
             | qname                                                    # Ref
             ;
piece        : value=expr IF cond=expr ;

unitExpr     : unitTerm ( op+=('*' | '/') unitTerm )* ;
unitTerm     : unitAtom ( '^' unitExponent )? ;
unitAtom     : IDENT | NUMBER | '(' unitExpr ')' ;
unitExponent : '-'? NUMBER | '(' '-'? NUMBER ('/' NUMBER)? ')' ;
signedNumber : '-'? NUMBER ;

qname        : IDENT | QNAME ;

SYSTEM     : 'system' ;
USE        : 'use' ;
DIMENSION  : 'dimension' ;
UNIT       : 'unit' ;
PREFIX     : 'prefix' ;
REF        : 'ref' ;
KIND_KW    : 'kind' ;
URL        : 'url' ;
YEAR       : 'year' ;
AT         : 'at' ;
VAR        : 'var' ;
CONST      : 'const' ;
ASSUME     : 'assume' ;
FOREIGN    : 'foreign' ;
SYMBOL     : 'symbol' ;
FALLBACK   : 'fallback' ;
EXPORT     : 'export' ;
TEMPLATE   : 'template' ;
INSTANCE   : 'instance' ;
EQ_KW      : 'eq' ;
VARIANT    : 'variant' ;
APPROX     : 'approx' ;
CONSTRAINT : 'constraint' ;
ITERATE    : 'iterate' ;
ODE        : 'ode' ;
STOCHASTIC : 'stochastic' ;
WHEN       : 'when' ;
OVER       : 'over' ;
FROM       : 'from' ;
TIMES      : 'times' ;
DERIV      : 'derivative' ;
MEAN       : 'mean' ;
PIECEWISE  : 'piecewise' ;
IF         : 'if' ;
OTHERWISE  : 'otherwise' ;
AND        : 'and' ;
OR         : 'or' ;
NOT        : 'not' ;

// A dotted name is one token, so keywords may appear as its parts (physical.eq.elmore_delay).
QNAME      : ID_PART ('.' ID_PART)+ ;
IDENT      : ID_PART ;
fragment ID_PART : [a-zA-Z_] [a-zA-Z_0-9]* ;
NUMBER     : [0-9]+ ('.' [0-9]*)? ([eE] [+-]? [0-9]+)? | '.' [0-9]+ ([eE] [+-]? [0-9]+)? ;
STRING     : '"' ( ~["\\\r\n] | '\\' . )* '"' ;
DOC        : '///' ~[\r\n]* ;
COMMENT    : '#' ~[\r\n]* -> skip ;
LINE_COMMENT : '//' ~[\r\n]* -> skip ;
WS         : [ \t\r\n]+ -> skip ;
ERRCHAR    : . ;
